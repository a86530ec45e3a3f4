"""A check replayed without hypothesis tells every student exactly what a check with it tells.

The first check on a new grader imports the hidden tests with hypothesis and stores each
property test's examples; every later check imports them with the stand-in and replays
(``checking/standin.py``). For every challenge of the course, the reference and every
known wrong answer get the same report both ways: the same outcome, points, hint and
detail for every test (only the seconds differ).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from menace_course.catalog import list_slugs
from menace_course.checking.pipeline import check_submission
from menace_course.checking.suite import load_suite
from menace_course.course import find_course
from tests.support import REPO

COURSE = find_course(REPO)


def without_times(report: Any) -> dict[str, Any]:
    data: dict[str, Any] = report.to_dict()
    data.pop("seconds")
    for test in data["tests"]:
        test.pop("seconds")
    return data


@pytest.mark.slow
@pytest.mark.parametrize("slug", list_slugs(COURSE))
def test_every_known_answer_gets_the_same_report_with_and_without_hypothesis(slug, tmp_path, monkeypatch):
    monkeypatch.setenv("MENACE_CACHE_DIR", str(tmp_path / "cache"))  # no example is stored yet
    generated = load_suite(COURSE, slug)
    replayed = load_suite(COURSE, slug)
    standin_modules = [
        name
        for name in sys.modules
        if name.endswith("_standin_import") and f"/{slug}/" in str(getattr(sys.modules[name], "__file__", ""))
    ]
    assert standin_modules, "the second collection should replay with the stand-in"
    answers: list[Path] = [
        REPO / "reference" / f"{slug}.py",
        *sorted((COURSE.challenges_dir / slug / "wrong").glob("*.py")),
    ]
    assert len(answers) > 1
    for answer in answers:
        first = check_submission(answer, generated, "process")
        again = check_submission(answer, replayed, "process")
        assert without_times(again) == without_times(first), answer.name
