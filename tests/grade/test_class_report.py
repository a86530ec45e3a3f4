"""The class report and grades.csv, from rows made by hand."""

from __future__ import annotations

import csv
import re
from dataclasses import replace
from pathlib import Path

from grade_support import REPO

from menace_course.grading.record import Grading, Record, Row, TestCell
from menace_course.grading.report import render_class_report
from menace_course.grading.stats import ClassStats, TestInfo
from menace_course.grading.table import grades_writer, header
from menace_course.models import Detail, LoadProblem, Problem, Status, SubmissionReport, Verdict

TESTS = (
    TestInfo("win", "A win adds 3"),
    TestInfo("loss", "A loss takes 1"),
    TestInfo("floor", "Never below 0"),
)


def record(student: str, detail: Detail | None = None, notes: tuple[str, ...] = ()) -> Record:
    """A record whose file did not load (with ``detail``), or that passed (with ``notes``)."""
    problem = LoadProblem("it did not load", detail) if detail else None
    status = Status.LOAD_ERROR if detail else Status.CHECKED
    report = SubmissionReport("after_game", "t", "after_game", "a.py", "bwrap", status, (), 0.0, 3.0, problem)
    verdict = Verdict.LOAD_ERROR if detail else Verdict.PASSED
    return Record(report, Grading(student=student, key=student, status=verdict, notes=notes))


def row(student: str, status: str, failing: tuple[str, ...] = (), seconds: float = 0.1, **lms: str) -> Row:
    ran = status in ("passed", "failed")
    cells = tuple(
        TestCell(
            t.name,
            "failed" if t.name in failing or not ran else "passed",
            0.0 if t.name in failing or not ran else 1.0,
            1.0,
        )
        for t in TESTS
    )
    return Row(
        student=student,
        key=student,
        score=sum(c.points for c in cells),
        max_score=3.0,
        status=status,
        reason="",
        file=f"{student}.py",
        source=f"{student}.py",
        lms=lms,
        late=False,
        seconds=seconds,
        tests=cells,
        challenge="after_game",
        suite_hash="h",
    )


CLASS = [
    row("ada", "passed"),
    row("bo", "failed", ("floor",)),
    row("cy", "failed", ("floor",), seconds=2.5),
    row("<script>alert(1)</script>", "failed", ("loss", "floor")),
    row("eve", "syntax_error"),
]


def stats_of(rows: list[Row]) -> ClassStats:
    stats = ClassStats(TESTS)
    for r in rows:
        stats.add(r)
    return stats


def test_pass_rates_count_only_submissions_that_ran() -> None:
    stats = stats_of(CLASS)
    assert stats.ran == 4
    assert stats.pass_rate("win") == 1.0 and stats.pass_rate("floor") == 0.25


def test_submissions_failing_the_same_tests_are_grouped_largest_first() -> None:
    groups = stats_of(CLASS).failing_groups
    assert [(g.failing, g.count) for g in groups] == [(("floor",), 2), (("loss", "floor"), 1)]
    assert groups[0].names == ["bo", "cy"]


def test_the_slowest_submissions_come_first() -> None:
    assert stats_of(CLASS).slowest[0][:2] == (2.5, "cy")


def test_the_report_is_one_html_file_with_inline_plots_and_escaped_names() -> None:
    html = render_class_report(
        stats_of(CLASS), REPO / "feedback_templates", "Back into the box", "after_game"
    )
    assert html.count("<svg") == 2 and "<img" not in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "Never below 0" in html and "syntax_error" in html


def test_grades_csv_has_lms_columns_and_one_column_per_test(tmp_path: Path) -> None:
    columns = header([t.name for t in TESTS], ["canvas_id"], has_late=False)
    with grades_writer(tmp_path / "grades.csv", columns) as add:
        add(row("bo", "failed", ("floor",), canvas_id="12345"))
    table = list(csv.DictReader((tmp_path / "grades.csv").open(newline="")))
    assert columns[:7] == ["student", "score", "max_score", "status", "reason", "file", "canvas_id"]
    assert table == [
        {
            "student": "bo",
            "score": "2",
            "max_score": "3",
            "status": "failed",
            "reason": "",
            "file": "bo.py",
            "canvas_id": "12345",
            "win": "1",
            "loss": "1",
            "floor": "0",
        }
    ]


def test_the_report_names_who_could_not_run_who_timed_out_and_who_needs_review() -> None:
    stats = ClassStats(TESTS)
    loops = row("lou", "failed", ("win", "loss", "floor"))
    loops = replace(loops, tests=(replace(loops.tests[0], outcome="timeout"), *loops.tests[1:]))
    stats.add(loops)
    hangs = replace(row("hal", "load_error"), reason="hal.py did not finish loading in time")
    stats.add(hangs, record("hal", Detail(problem=Problem.TIMEOUT)))
    crashed = row("cy", "load_error")
    stats.add(crashed, record("cy", Detail(problem=Problem.RAISED, error_type="ZeroDivisionError")))
    stats.add(row("eve", "syntax_error"))
    stats.add(row("ada", "passed"), record("ada", notes=("needs review: one file on disk with bo's",)))
    html = render_class_report(stats, REPO / "feedback_templates", "Back into the box", "after_game")
    text = re.sub(r"<[^>]+>", "", html)
    assert "3 could not be run." in text
    assert "Of those whose tests ran, 1 had checks that did not finish in time" in text
    could_not_run = text.split("Could not run", 1)[1].split("Timed out", 1)[0]
    assert "hal" in could_not_run and "timeout while loading" in could_not_run
    assert "ZeroDivisionError while loading" in could_not_run and "syntax error" in could_not_run
    timed_out = text.split("Timed out", 1)[1].split("Slowest", 1)[0]
    assert "lou" in timed_out and "1 check did not finish in time" in timed_out
    review = text.split("Needs review", 1)[1].split("Could not run", 1)[0]
    assert "ada" in review and "one file on disk with bo" in review


def timed_out(student: str, status: str) -> Row:
    """A row whose first test's call did not finish in time; ``status`` as grades.csv says."""
    ran = row(student, "failed", ("win",) if status == "timeout" else ("win", "floor"))
    cells = (replace(ran.tests[0], outcome="timeout"), *ran.tests[1:])
    return replace(ran, status=Verdict(status), tests=cells)


def test_a_timed_out_student_is_counted_once_and_the_report_says_what_grades_csv_calls_it() -> None:
    stats = stats_of([row("ada", "passed"), timed_out("tim", "timeout"), timed_out("fay", "failed")])
    text = re.sub(r"<[^>]+>", "", render_class_report(stats, REPO / "feedback_templates", "t", "after_game"))
    summary = text.split("Scores", 1)[0]
    # 3 students: 1 passes, 1 fails, 1 stopped, 0 could not run: the parts add up to 3.
    assert "1 pass every test" in summary and "1 fail some" in summary
    assert "1 was stopped by a time limit before any test found a wrong answer" in summary
    assert "0 could not be run." in summary
    assert "Of those whose tests ran, 2 had checks that did not finish in time" in summary
    section = text.split("Timed out", 1)[1].split("Every student", 1)[0]
    assert "status is timeout when no test found a wrong answer, failed when one did" in section
    assert "counts them as failed" not in text
    statuses = text.split("Every status", 1)[1].split("Timed out", 1)[0]
    assert "a time limit stopped it" in statuses


def test_the_report_lists_every_student_with_score_status_and_lateness() -> None:
    late = replace(row("bo", "failed", ("floor",)), late=True)
    stats = stats_of([row("cy", "passed"), late, row("Ada", "syntax_error")])
    html = render_class_report(stats, REPO / "feedback_templates", "t", "after_game")
    table = html.split("<h2>Every student</h2>", 1)[1].split("</table>", 1)[0]
    assert [re.findall(r"<td>(.*?)</td>", line)[0] for line in table.split("<tr>")[2:]] == ["Ada", "bo", "cy"]
    assert "2 / 3" in table and "0 / 3" in table and "3 / 3" in table
    bo = next(line for line in table.split("<tr>") if "<td>bo</td>" in line)
    assert "late" in bo
    assert "1 handed in late." in re.sub(r"<[^>]+>", "", html)


def test_the_per_test_chart_has_a_legend_for_its_colours() -> None:
    html = render_class_report(stats_of(CLASS), REPO / "feedback_templates", "t", "after_game")
    for label in ("80% or more pass", "50% to 79% pass", "under 50% pass"):
        assert label in html
