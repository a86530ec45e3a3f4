"""What ``menace grade`` makes of a lost grader, reason by reason (``pool.Lost``).

A grader process that hangs is stopped by the watchdog: the row is a ``timeout``, and the
student reads that checking did not finish in time. One that dies (twice: it is tried
once more on a fresh process) is the grader's fault: a ``grader_error`` row, the why for
the instructor only, and words for the student that do not blame their file.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from menace_course.course import Course
from menace_course.feedback import render
from menace_course.grading.batch import Task, lost_record, make_task
from menace_course.grading.discover import Entry
from menace_course.grading.record import Record
from menace_course.models import Status
from menace_course.pool import Graders
from tests.support import REPO


def hangs(task: Task) -> Record:
    time.sleep(120)  # a grader stuck for good (a submission cannot do this: the sandbox stops it)
    raise AssertionError("the watchdog let it run")


def dies(task: Task) -> Record:
    os._exit(9)  # the grader process is killed (the system's OOM killer, say)


def _lost(function, tmp_path: Path) -> tuple[Record, str]:
    (tmp_path / "ada.py").write_text("def after_game(beads, square, result):\n    return beads\n")
    task = make_task(
        Entry("ada", "ada", "ada.py", Path("ada.py")), tmp_path, Course(REPO), "after_game", "process"
    )
    with Graders(1) as graders:
        (record,) = graders.run(function, [task], on_lost=lost_record, seconds=lambda _: 2.0)
    return record, render(record.report, Course(REPO).templates_dir, "text")


def test_a_grader_that_hangs_is_stopped_and_the_row_is_a_timeout(tmp_path: Path) -> None:
    record, student_reads = _lost(hangs, tmp_path)
    assert record.report.status is Status.TIMEOUT
    assert record.grading.status.value == "timeout" and record.grading.grader_error is None
    assert "did not finish within the 2 seconds a submission may take" in " ".join(student_reads.split())
    assert all(test.outcome.value == "skipped" for test in record.report.tests)


def test_a_grader_that_dies_twice_is_a_grader_error_the_student_is_not_blamed_for(tmp_path: Path) -> None:
    record, student_reads = _lost(dies, tmp_path)
    assert record.report.status is Status.GRADER_ERROR
    assert record.grading.status.value == "grader_error"
    assert record.grading.grader_error == "the grader process died (exit code 9)"  # the instructor's
    assert "exit code" not in student_reads
    assert "not your mistake" in " ".join(student_reads.split())
