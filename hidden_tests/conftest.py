"""Run a challenge's hidden tests with plain pytest: against its reference, or any submission.

    python -m pytest hidden_tests/after_game                          # the reference
    python -m pytest hidden_tests/after_game --submission mine.py     # a student's file
    python -m pytest hidden_tests/after_game --submission alice/      # a folder: the file is
                                                                      # picked as menace grade does

The submission is opened by the one path every entry point uses
(:func:`menace_course.checking.pipeline.open_submission`: read, sandboxed child, proxy),
so a test behaves here exactly as it does when grading; the difference is pytest's report
instead of a student's feedback. ``menace check`` and ``menace grade`` do not use this
file: they run the same test functions themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from menace_course.catalog import load_challenge
from menace_course.checking.pipeline import Target, open_submission
from menace_course.checking.proxy import SubmissionProxy
from menace_course.checking.testing import use_course_references, with_grading_settings
from menace_course.course import find_course
from menace_course.sandbox.launch import choose_kind

COURSE = find_course(Path(__file__).resolve().parent.parent)
use_course_references(COURSE.reference_dir)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--submission", default=None, help="the file or folder to test (default: the reference)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each property test runs under menace's grading settings (no global profile is loaded)."""
    for item in items:
        test = getattr(item, "obj", None)
        if hasattr(test, "hypothesis"):
            with_grading_settings(test)


@pytest.fixture(scope="module")
def submission(request: pytest.FixtureRequest) -> Iterator[SubmissionProxy]:
    slug = Path(str(request.path)).parent.name
    chosen = request.config.getoption("--submission")
    path = Path(chosen) if chosen else COURSE.reference_dir / f"{slug}.py"
    with open_submission(path, Target.of(load_challenge(COURSE, slug)), choose_kind("auto")) as opened:
        if opened.proxy is None:
            problem = opened.problem.message if opened.problem else opened.why_not
            pytest.fail(f"{path}: {opened.status}: {problem}", pytrace=False)
        token = opened.proxy.activate()
        yield opened.proxy
        opened.proxy.deactivate(token)
