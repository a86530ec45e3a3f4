"""The student's view of a report (``student_view``): what a hidden test keeps, made in the grader.

The end-to-end attacks are in ``tests/check/test_hidden_stays_hidden.py``; these are the rules
of the one function, on reports made by hand.
"""

from __future__ import annotations

import builtins
import dataclasses
import re

from menace_course.checking.runner import VALUE_PROBLEMS
from menace_course.models import (
    Detail,
    ErrorKind,
    Finding,
    Line,
    Outcome,
    Problem,
    Status,
    SubmissionReport,
    TestKind,
    TestResult,
)
from menace_course.student_view import TRIED_SOMETHING, student_dict, student_view
from tests.support import REPO

DOC = (REPO / "docs" / "json-schema.md").read_text(encoding="utf-8")


def _test(name: str, visible: bool, detail: Detail | None, outcome: Outcome = Outcome.ERROR) -> TestResult:
    return TestResult(
        name=name,
        title=name.replace("_", " "),
        kind=TestKind.EXAMPLE if visible else TestKind.HIDDEN,
        outcome=outcome,
        message="stopped with an error",
        points=0.0,
        max_points=1.0,
        hint=None if visible else "win_adds_three",
        is_visible=visible,
        detail=detail,
        seconds=0.4321,
    )


CHILD_SAYS = Detail(
    problem=Problem.RAISED,
    call="after_game([1, 2, 3], 4, 'win')",
    expected="[1, 2, 3]",
    got="LEAK",
    error_type="LEAK([91, 92, 93], 4, 'win')",
    error_message="LEAK([91, 92, 93], 4, 'win')",
    traceback=(Line(line=1093, function="LEAK_91_92_93", code="raise X"),),
    printed="LEAK [91, 92, 93]",
    note="LEAK",
)


def _report(*tests: TestResult, integrity: tuple[Finding, ...] = ()) -> SubmissionReport:
    return SubmissionReport(
        challenge="after_game",
        title="Back into the box",
        function="after_game",
        file="after_game.py",
        sandbox="bwrap",
        status=Status.CHECKED,
        tests=tests,
        score=0.0,
        max_score=float(len(tests)),
        seconds=3.14159,
        integrity=integrity,
    )


def test_a_hidden_test_keeps_only_the_problem_and_no_name_the_child_chose():
    report = _report(_test("win_on_a_side_square", False, CHILD_SAYS))
    (shown,) = student_view(report).tests
    assert shown.detail == Detail(problem=Problem.RAISED)
    assert shown.message == "raised an exception" and shown.seconds == 0.0
    assert shown.hint == "win_adds_three" and shown.title == "win on a side square"
    assert "LEAK" not in repr(student_dict(report))
    assert report.tests[0].detail == CHILD_SAYS  # the instructor's record keeps what the child said


def test_a_builtin_kind_is_named_only_when_it_is_exactly_one_of_the_fixed_list():
    sent_and_shown = [("IndexError", "IndexError"), ("IndexError ", None), ("indexerror", None), ("", None)]
    for sent, shown in sent_and_shown:
        detail = dataclasses.replace(CHILD_SAYS, error_type=sent)
        (test,) = student_view(_report(_test("t", False, detail))).tests
        assert test.detail is not None and test.detail.error_type == shown, sent
        assert test.message == (f"raised {shown}" if shown else "raised an exception")


def test_every_kind_is_exactly_a_builtin_exception_and_the_docs_count_them():
    for kind in ErrorKind:
        value = getattr(builtins, kind.value)
        assert isinstance(value, type) and issubclass(value, BaseException), kind
    assert f"one of the {len(ErrorKind)} exact builtin names" in DOC
    raised_values = len(ErrorKind) + 1
    assert f"1 + {raised_values} + 8 + {len(VALUE_PROBLEMS)} × (h + 1)" in DOC


def test_the_total_time_is_rounded_and_each_tests_time_is_zero():
    view = student_view(_report(_test("example_1", True, None, Outcome.PASSED), _test("t", False, None)))
    assert view.seconds == 3.1 and all(t.seconds == 0.0 for t in view.tests)


def test_a_visible_test_after_hidden_calls_keeps_only_the_graders_call_and_expected_value():
    hidden = _test("t", False, CHILD_SAYS, Outcome.FAILED)
    visible = dataclasses.replace(_test("later", True, CHILD_SAYS), kind=TestKind.PROPERTY)
    (_, later) = student_view(_report(hidden, visible)).tests
    assert later.detail == Detail(problem=Problem.RAISED, call=CHILD_SAYS.call, expected=CHILD_SAYS.expected)
    before = student_view(_report(visible, hidden)).tests[0]
    assert before.detail is not None and before.detail.error_message == CHILD_SAYS.error_message


def test_a_detail_the_sandbox_passed_on_is_dropped_but_the_graders_sentences_stay():
    findings = (
        Finding("code", "walks the call stack (`sys._getframe`)", 3),
        Finding("sandbox", "called a function the sandbox refuses (`LEAK_915c`)"),
        Finding("sandbox", "listed every object in memory while running (`gc.get_objects`)"),
        Finding("sandbox", "listed every object in memory while running (`gc.LEAK_91`)"),
    )
    shown = student_view(_report(integrity=findings)).integrity
    assert [f.what for f in shown] == [
        "walks the call stack (`sys._getframe`)",
        "listed every object in memory while running (`gc.get_objects`)",
        TRIED_SOMETHING,
    ]


def test_the_view_of_a_view_is_the_view():
    report = _report(_test("example_1", True, CHILD_SAYS), _test("t", False, CHILD_SAYS))
    assert student_view(student_view(report)) == student_view(report)
    assert not re.search(r"LEAK", repr(student_view(report).tests[1]))
