"""A bug in a test or in the grader is never the student's failure: grader_error, traceback kept apart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from menace_course.checking.pipeline import check_submission
from menace_course.checking.suite import load_suite
from menace_course.course import Course
from menace_course.feedback import render
from menace_course.grading.discover import Entry
from menace_course.grading.record import make_record
from menace_course.models import Outcome, Status
from tests.support import REPO

RIGHT = (REPO / "reference" / "after_game.py").read_text()
TESTS = '''
from menace_course import expect_equal


def test_works(submission):
    """A win adds three beads."""
    expect_equal(submission.after_game([4] * 9, 0, "win"), [7] + [4] * 8)


def test_has_a_bug(submission):
    """A test whose own code is wrong."""
    SECRET_EXPECTED = [1, 2, 3]
    submission.after_game([4] * 9, 0, "win")
    {}["the test's own KeyError"]
'''


@pytest.fixture
def course(tmp_path: Path) -> Course:
    root = tmp_path / "course"
    shutil.copytree(REPO / "challenges" / "after_game", root / "challenges" / "after_game")
    shutil.copytree(REPO / "feedback_templates", root / "feedback_templates")
    (root / "reference").mkdir()
    shutil.copy(REPO / "reference" / "after_game.py", root / "reference" / "after_game.py")
    (root / "hidden_tests" / "after_game").mkdir(parents=True)
    (root / "hidden_tests" / "after_game" / "test_bug.py").write_text(TESTS)
    return Course(root)


def test_a_test_that_raises_its_own_error_is_a_grader_error_and_the_rest_still_count(course):
    report = check_submission(("after_game.py", RIGHT.encode()), load_suite(course, "after_game"), "process")
    outcomes = {t.name: t.outcome for t in report.tests}
    assert outcomes["works"] is Outcome.PASSED and outcomes["has_a_bug"] is Outcome.GRADER_ERROR
    assert report.status is Status.CHECKED and not report.passed
    assert len(report.grader_log) == 1 and "KeyError" in report.grader_log[0]
    shown = json.dumps(report.to_dict()) + render(report, course.templates_dir, "text")
    assert "KeyError" not in shown and "SECRET_EXPECTED" not in shown and "grader_log" not in shown
    assert "the grader failed on this check (not your mistake" in render(report, course.templates_dir, "text")


def test_the_instructors_record_keeps_the_traceback_and_says_grader_error(course):
    report = check_submission(("after_game.py", RIGHT.encode()), load_suite(course, "after_game"), "process")
    entry = Entry(student="ada", key="ada", source="ada.py", file=Path("ada.py"))
    record = make_record(entry, report).to_dict()
    assert record["grading"]["status"] == "grader_error"
    assert "the test's own KeyError" in record["grading"]["grader_error"]


def test_a_bug_in_the_grader_itself_is_a_grader_error_report_not_a_traceback(course, monkeypatch):
    from menace_course.checking import pipeline

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug of ours")

    monkeypatch.setattr(pipeline, "run_cases", broken)
    report = check_submission(("after_game.py", RIGHT.encode()), load_suite(course, "after_game"), "process")
    assert report.status is Status.GRADER_ERROR and report.score == 0
    assert all(t.outcome is Outcome.SKIPPED for t in report.tests)
    assert "ZeroDivisionError: a bug of ours" in report.grader_log[0]
    assert "ZeroDivisionError" not in json.dumps(report.to_dict())


SHAPE_TESTS = '''
def test_sorts_the_answer(submission):
    """The beads, in order, start at a count of 0 or more."""
    assert sorted(submission.after_game([4] * 9, 0, "win"))[0] >= 0


def test_counts_in_the_answer(submission):
    """Three beads were added to one square."""
    assert submission.after_game([4] * 9, 0, "win").count(7) == 1
'''

ODD_SHAPES = """
def after_game(box, square, result):
    if square == 0 and result == "win" and box == [4] * 9:
        return {"square 0": 7}          # a dict: .count is not there, sorted() gives keys
    return box
"""

MIXED = """
def after_game(box, square, result):
    if square == 0 and result == "win" and box == [4] * 9:
        return [7, "four", 4]           # sorted() cannot order str and int
    return box
"""


@pytest.fixture
def shape_course(course: Course) -> Course:
    (course.hidden_tests_dir / "after_game" / "test_bug.py").write_text(SHAPE_TESTS)
    return course


@pytest.mark.parametrize("answer", [ODD_SHAPES, MIXED], ids=["dict", "mixed-list"])
def test_a_test_that_cannot_use_an_odd_answer_is_the_students_failure_not_a_grader_error(
    shape_course, answer
):
    suite = load_suite(shape_course, "after_game")
    report = check_submission(("after_game.py", answer.encode()), suite, "process")
    hidden = {t.name: t for t in report.tests if t.name in ("sorts_the_answer", "counts_in_the_answer")}
    assert Outcome.GRADER_ERROR not in {t.outcome for t in hidden.values()}
    assert any(t.outcome is Outcome.FAILED and t.detail.problem == "wrong_type" for t in hidden.values())
    assert not report.grader_log
    text = render(report, shape_course.templates_dir, "text")
    assert "not your mistake" not in text


def test_the_reference_passes_the_same_tests_so_they_are_not_wrong(shape_course):
    suite = load_suite(shape_course, "after_game")
    report = check_submission(("after_game.py", RIGHT.encode()), suite, "process")
    assert all(t.outcome is Outcome.PASSED for t in report.tests), [t.outcome for t in report.tests]
