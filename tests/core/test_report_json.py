"""A report's JSON form (``SubmissionReport.to_dict``) is every field, enums as their values,
tuples as lists, nested reports of problems and frames included: what ``dataclasses.asdict``
gives with the enums replaced, exactly (the service reads it on every check, so it is made in
one walk, without asdict's copies)."""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any

import pytest

from menace_course.checking.pipeline import check_submission
from menace_course.checking.suite import load_suite
from menace_course.course import Course
from menace_course.models import SubmissionReport
from tests.support import REPO

EXAMPLES = REPO / "examples"


def as_asdict_gave(report: SubmissionReport) -> dict[str, Any]:
    """The JSON form as it was first written: asdict, then a walk for enums and tuples."""

    def plain(value: Any) -> Any:
        if isinstance(value, enum.Enum):
            return value.value
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [plain(item) for item in value]
        return value

    data = dataclasses.asdict(report)
    del data["grader_log"]
    data["passed"] = report.passed
    made: dict[str, Any] = plain(data)
    return made


@pytest.mark.slow
@pytest.mark.parametrize(
    "source",
    [
        (EXAMPLES / "after_game_student.py").read_text(),  # every test passes
        (EXAMPLES / "after_game_buggy.py").read_text(),  # details: calls, expected, got, frames
        "def after_game(beads, square, result):\n    return beads[99]\n",  # an error's traceback
        "def after_game(beads, square, result)\n    return beads\n",  # a syntax error: a load problem
        "import os\nos.system('true')\ndef after_game(b, s, r):\n    return list(b)\n",  # notices
    ],
    ids=["right", "buggy", "raises", "syntax", "notices"],
)
def test_a_reports_json_form_is_every_field_with_enums_as_values(source: str) -> None:
    suite = load_suite(Course(REPO), "after_game")
    report = check_submission(("after_game.py", source.encode()), suite, "process")
    made = report.to_dict()
    assert made == as_asdict_gave(report)
    assert json.dumps(made) == json.dumps(as_asdict_gave(report))  # the same order of keys too
    assert "grader_log" not in made and made["passed"] is report.passed
