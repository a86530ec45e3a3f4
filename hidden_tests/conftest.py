"""Run a challenge's hidden tests with plain pytest: against its reference, or any file.

    python -m pytest hidden_tests/after_game                       # the reference
    python -m pytest hidden_tests/after_game --submission mine.py  # a student's file

The submission is loaded in the sandbox and called through the same ``submission``
proxy ``menace check`` uses, so a test behaves here exactly as it does when grading;
the difference is pytest's report instead of a student's feedback. ``menace check`` and
``menace grade`` do not use this file: they run the same test functions themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from menace_course.catalog import load_challenge
from menace_course.checking.loader import read_submission
from menace_course.checking.proxy import SubmissionProxy
from menace_course.checking.testing import GRADING_PROFILE, use_course_references
from menace_course.course import find_course
from menace_course.sandbox.launch import choose_kind
from menace_course.sandbox.worker import Worker

COURSE = find_course(Path(__file__).resolve().parent.parent)
use_course_references(COURSE.reference_dir)
settings.load_profile(GRADING_PROFILE)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--submission", default=None, help="the file to test (default: the reference)")


@pytest.fixture(scope="module")
def submission(request: pytest.FixtureRequest) -> Iterator[SubmissionProxy]:
    slug = Path(str(request.path)).parent.name
    chosen = request.config.getoption("--submission")
    path = Path(chosen) if chosen else COURSE.reference_dir / f"{slug}.py"
    source = read_submission(path)
    if source.problem is not None:
        pytest.fail(f"{path}: {source.problem.message}", pytrace=False)
    with Worker(source.text, choose_kind("auto"), load_challenge(COURSE, slug).limits) as worker:
        load = worker.load()
        if load.status != "ready":
            pytest.fail(f"{path} did not load: {load.status} {load.exception}", pytrace=False)
        proxy = SubmissionProxy(worker, load.functions)
        token = proxy.activate()
        yield proxy
        proxy.deactivate(token)
