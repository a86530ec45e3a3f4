"""Grade many submissions at once: each in a grader process of the pool, one sandbox each.

Each grader process is trusted grader code (it imports the hidden tests and the
reference); the student's code never runs in it, only in the sandboxed child that
:func:`~menace_course.checking.pipeline.check_submission` starts for each submission. A
grader collects the challenge's suite once (before the watchdog's clock starts) and
keeps it. A :class:`Task` goes in, a record comes out.

:class:`~menace_course.pool.Graders` runs the tasks, and :func:`lost_record` is the row of a
task whose grader was lost: a submission still being graded after
:func:`~menace_course.checking.pipeline.time_allowed` gets a ``timeout`` row; a grader that
died (twice), or a bug of ours, a ``grader_error`` row with why. Nothing a submission does
can keep ``menace grade`` from finishing.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, replace
from pathlib import Path

from menace_course.authoring.public import handed_out_match
from menace_course.checking.loader import Source, read_submission
from menace_course.checking.pipeline import GRADER_FAILED, check_submission, stopped_report
from menace_course.checking.suite import RUN_SUITES, Suite
from menace_course.course import Course
from menace_course.errors import UsageError
from menace_course.grading.discover import Entry, entry_path
from menace_course.grading.record import Record, make_record
from menace_course.models import LoadProblem, SandboxKind, Status
from menace_course.pool import GraderLost, Lost


@dataclass(frozen=True)
class Task:
    """Everything a worker process needs to grade one entry."""

    entry: Entry
    root: Path  #: SUBMISSIONS
    course: Path
    slug: str
    sandbox: SandboxKind


def make_task(entry: Entry, root: Path, course: Course, slug: str, sandbox: SandboxKind) -> Task:
    """Everything a worker process needs to grade one entry."""
    return Task(entry, root, course.root, slug, sandbox)


def worker_suite(course_root: str, slug: str) -> Suite:
    """The challenge's suite, collected once per process (``suite.RUN_SUITES``)."""
    return RUN_SUITES.get(Course(Path(course_root)), slug)


def _shown_name(entry: Entry) -> Path:
    """The name the feedback gives the submission: the student's own file name, or the entry's."""
    return Path(entry.display_name or entry.source.rstrip("/"))


def _source(entry: Entry, root: Path) -> Source:
    name = _shown_name(entry)
    if entry.problem is not None:
        return Source(name, "", Status.UNREADABLE, LoadProblem(entry.problem.message))
    try:
        source = read_submission(entry_path(entry.to_dict(), root))
    except UsageError as error:  # the file went away after it was found
        return Source(name, "", Status.UNREADABLE, LoadProblem(str(error)))
    return replace(source, path=name)


def warm(task: Task) -> None:
    """Collect the challenge's suite in this worker (before the watchdog's clock starts)."""
    worker_suite(str(task.course), task.slug)


def grade_task(task: Task) -> Record:
    """Grade one entry in this process (its code runs in a sandboxed child) and return its record."""
    suite = worker_suite(str(task.course), task.slug)
    try:
        source = _source(task.entry, task.root)
        report = check_submission(source, suite, task.sandbox, student=task.entry.student)
        handed_out = handed_out_match(Course(task.course), task.slug, source.text) if source.text else None
        return make_record(task.entry, report, handed_out=handed_out)
    except Exception:  # our bug must cost one row, never the batch; the instructor sees the traceback
        return grader_error_record(task, traceback.format_exc())


def grader_error_record(task: Task, why: str) -> Record:
    """The record of an entry the grader could not check: every test skipped, the reason kept."""
    suite = worker_suite(str(task.course), task.slug)
    report = stopped_report(
        suite, _shown_name(task.entry), task.sandbox, Status.GRADER_ERROR, GRADER_FAILED, task.entry.student
    )
    return make_record(task.entry, report, grader_error=why)


def lost_record(task: Task, lost: GraderLost) -> Record:
    """The record of an entry whose grader gave no result: a ``timeout`` row, or a grader error with why."""
    if lost.reason is Lost.TIMEOUT:
        return timeout_record(task, lost.seconds)
    return grader_error_record(task, lost.detail)


def timeout_record(task: Task, seconds: float) -> Record:
    """The record of an entry whose grading the watchdog stopped: every test skipped."""
    suite = worker_suite(str(task.course), task.slug)
    message = (
        f"checking this file did not finish within the {seconds:g} seconds a submission may take, "
        "so it was stopped and nothing was graded; your teacher can see this"
    )
    report = stopped_report(
        suite, _shown_name(task.entry), task.sandbox, Status.TIMEOUT, message, task.entry.student
    )
    return make_record(task.entry, report)
