"""Hidden tests use only what the grader runs; everything else is refused, naming file:line.

pytest would run a test class, a fixture, ``@pytest.mark.parametrize`` or ``skip``; the
grader runs module-level ``test_*(submission)`` functions (with ``@given``'s arguments).
So the suite loader, and with it ``menace validate`` and ``menace check``, refuses each
form it would not run: never a test silently dropped, never a grader error for every
student.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from menace_course.checking.suite import unsupported_forms

REPO = Path(__file__).resolve().parents[2]

#: A file of what pytest runs and the grader does not, one form a line (numbers below).
UNSUPPORTED = """import pytest
from hypothesis import given, strategies as st

from menace_course import expect_equal, hint


@pytest.fixture
def boxes():
    return {}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_twice_any_number(submission, n):
    expect_equal(submission.bead_total(n), 2 * n)


def test_with_a_fixture(submission, boxes):
    expect_equal(submission.bead_total(len(boxes)), 0)


class TestTwice:
    def test_ten(self, submission):
        expect_equal(submission.bead_total(10), 20)


@pytest.mark.skip(reason="later")
def test_later(submission):
    pass


async def test_async(submission):
    pass


def test_no_submission():
    pass


@hint("bead_total_rules")
@given(n=st.integers(0, 9))
def test_a_property_is_fine(submission, n):
    expect_equal(submission.bead_total(n), 2 * n)


@given(st.integers(0, 9))
def test_a_property_by_position_is_fine(submission, n):
    expect_equal(submission.bead_total(n), 2 * n)
"""


def test_each_form_the_grader_does_not_run_is_named_with_its_line(tmp_path):
    path = tmp_path / "test_forms.py"
    path.write_text(UNSUPPORTED, encoding="utf-8")
    problems = unsupported_forms(path, tmp_path)
    assert [p.split(":")[:2] for p in problems] == [
        ["test_forms.py", "7"],  # @pytest.fixture
        ["test_forms.py", "12"],  # @pytest.mark.parametrize
        ["test_forms.py", "17"],  # a fixture asked for
        ["test_forms.py", "21"],  # class TestTwice
        ["test_forms.py", "26"],  # @pytest.mark.skip
        ["test_forms.py", "31"],  # async def
        ["test_forms.py", "35"],  # no submission
    ], problems
    assert "@pytest.mark.parametrize on test_twice_any_number is not run by the grader" in problems[1]
    assert "asks for boxes: pytest fixtures" in problems[2]
    assert "class TestTwice: a test class is not run by the grader" in problems[3]


@pytest.mark.parametrize("slug", ["after_game", "count_boxes", "name", "new_box", "opening_box", "play_game"])
def test_the_six_challenges_use_only_what_the_grader_runs(slug):
    for path in sorted((REPO / "hidden_tests" / slug).glob("test_*.py")):
        assert unsupported_forms(path, REPO) == []


@pytest.fixture
def bead_total(course, menace):
    assert menace("new", "bead_total", "--course", str(course)).code == 0
    return course / "hidden_tests" / "bead_total"


PARAMETRIZED = """import pytest

from menace_course import expect_equal


@pytest.mark.parametrize("n", [1, 2])
def test_twice(submission, n):
    expect_equal(submission.bead_total(n), 2 * n)
"""


@pytest.mark.slow
def test_validate_refuses_a_parametrized_test_naming_its_line(course, menace, bead_total):
    (bead_total / "test_more.py").write_text(PARAMETRIZED, encoding="utf-8")
    ran = menace(
        "validate", "bead_total", "--course", str(course), "--sandbox", "process", "--format", "json"
    )
    assert ran.code == 1
    problems = ran.json()["challenges"][0]["problems"]
    assert problems[0].startswith(
        "hidden_tests/bead_total/test_more.py:6: @pytest.mark.parametrize on test_twice is not run"
    ), problems
    assert len(problems) == 1, problems


def test_check_says_which_line_of_the_tests_it_cannot_run_and_runs_nothing(
    course, menace, bead_total, tmp_path
):
    (bead_total / "test_more.py").write_text(
        "class TestTwice:\n    def test_ten(self, submission):\n        pass\n", encoding="utf-8"
    )
    answer = tmp_path / "bead_total.py"
    answer.write_text("def bead_total(n):\n    return 2 * n\n", encoding="utf-8")
    ran = menace(
        "check", answer, "--challenge", "bead_total", "--course", str(course), "--sandbox", "process"
    )
    assert ran.code == 2
    said = ran.out + ran.err
    assert (
        "hidden_tests/bead_total/test_more.py:1: class TestTwice: a test class is not run by the grader"
        in said
    )
    assert "Traceback" not in said
