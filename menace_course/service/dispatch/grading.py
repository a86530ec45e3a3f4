"""The service's one way into the grader: :func:`check_job`, and :class:`JobGraders` that run it.

Every check the service runs, whatever dispatches it (the local pool, a task queue's
worker), ends in :func:`check_job`, which hands the submission as ``(filename, bytes)`` to
the one submission path, :func:`~menace_course.checking.pipeline.check_submission`: read
by the same loader as ``menace check FILE`` (size, encoding, notebooks, syntax), checked by
the same pipeline, in the same sandbox, with the challenge's own limits. It is the only
function of the service that calls the grader.

:class:`JobGraders` runs it in the one pool of grader processes (:mod:`menace_course.pool`),
each of which imports every challenge's hidden tests once, when it starts (:func:`warm`),
so a check pays only for its sandbox and its tests. A job whose grader was lost (timeout,
died twice, refused, raised) gets a grader-error report, never a verdict on the student's
code. Student code never runs in a grader process, only in the sandboxed child of a check.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import traceback
from dataclasses import replace
from pathlib import Path

from menace_course import catalog
from menace_course.checking.loader import Source
from menace_course.checking.pipeline import GRADER_FAILED, check_submission
from menace_course.checking.suite import SUITES, Suite
from menace_course.course import Course
from menace_course.models import LoadProblem, SandboxKind, Status, SubmissionReport
from menace_course.pool import GraderLost, Graders, Lost
from menace_course.service.dispatch.base import CheckJob

log = logging.getLogger("menace.service.dispatch")


def suite_for(course_root: str, slug: str) -> Suite:
    """A challenge's tests, collected once per process and again whenever one of its files changes."""
    return SUITES.get(Course(Path(course_root)), slug)


def warm(course_root: str) -> list[str]:
    """Collect every challenge's tests now, so that no student waits for it; their slugs."""
    from menace_course.sandbox.child import compiled_harness

    compiled_harness()
    slugs = catalog.list_slugs(Course(Path(course_root)))
    for slug in slugs:
        suite_for(course_root, slug)
    return slugs


def check_job(
    course_root: str, job: CheckJob, sandbox: SandboxKind, failure: str | None = None
) -> SubmissionReport:
    """Check one submission through the one submission path; its report (as ``menace check`` makes it).

    With ``failure`` (the grader broke on this job before), nothing runs: the report says
    the grader failed, every test skipped, so the student is never blamed for our fault.
    """
    suite = suite_for(course_root, job.challenge)
    if failure is not None:
        source = Source(Path(job.filename), "", Status.GRADER_ERROR, LoadProblem(GRADER_FAILED))
        return check_submission(source, suite, sandbox)
    return check_submission((job.filename, job.source.encode("utf-8")), suite, sandbox)


def ready(course_root: str) -> None:
    """A grader process's start-up: :func:`warm`; a broken course refuses, said by :func:`where`."""
    try:
        warm(course_root)
    except Exception as error:
        raise RuntimeError(where(error)) from None


def check_in_grader(
    course_root: str, sandbox: SandboxKind, job: CheckJob, failure: str | None = None
) -> SubmissionReport:
    """:func:`check_job` in a grader process; a bug of ours: a grader error, the traceback in its log."""
    try:
        return check_job(course_root, job, sandbox, failure)
    except Exception:
        report = check_job(course_root, job, sandbox, failure="raised")
        return replace(report, grader_log=(traceback.format_exc(),))


def minimal_failure_report(job: CheckJob, sandbox: SandboxKind) -> SubmissionReport:
    """A grader-error report made without the grader (when not even that could run)."""
    return SubmissionReport(
        challenge=job.challenge,
        title=job.challenge,
        function="",
        file=job.filename,
        sandbox=sandbox,
        status=Status.GRADER_ERROR,
        tests=(),
        score=0.0,
        max_score=0.0,
        load_problem=LoadProblem(GRADER_FAILED),
    )


#: What an exception's type line is reduced to in the log: a (dotted) name, nothing else.
_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]{0,99}")
#: The first line of a test's grader log (checking/runner.py): ``test NAME:``.
_TEST_NAME = re.compile(r"test [A-Za-z_]\w{0,99}:")


def where(error: BaseException) -> str:
    """An exception as a one-line place for the log: its type, and file:line of each frame.

    Neither its message nor source lines: a grader bug may raise with a hidden test's
    input or answer in its message, and a frame in a hidden test must not put its code in
    the log. The type and the places are enough to find the line in our code.
    """
    frames = []
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(f"{Path(code.co_filename).name}:{tb.tb_lineno} {code.co_name}")
        tb = tb.tb_next
    return f"{type(error).__name__} (at {' < '.join(reversed(frames[-6:]))})"


def _type_of(lines: list[str]) -> str:
    """The exception type a formatted traceback ends with (its message left out).

    The type line is the first line after the last frame that is not indented; a message
    may follow it on that line and on the lines after it.
    """
    last_frame = max((i for i, ln in enumerate(lines) if ln.startswith("  File ")), default=-1)
    for line in lines[last_frame + 1 :]:
        if line and not line.startswith(" "):
            name = _TYPE_NAME.match(line.split(":", 1)[0].strip())
            return name.group(0) if name else "an exception"
    return "an exception"


def without_code(tracebacks: tuple[str, ...]) -> str:
    """Tracebacks for the log: where each frame was and the exception's type, nothing else.

    A hidden test's code (the source lines) and the exception's message (which may hold a
    hidden input or answer) are left out; the student's report never had them.
    """
    kept = []
    for text in tracebacks:
        lines = text.rstrip().splitlines()
        name = _TEST_NAME.match(lines[0]) if lines else None
        kept += [name.group(0)] if name else []  # a test's name is public (the report shows it)
        kept += [ln.strip() for ln in lines if ln.startswith(("  File ", "Traceback"))]
        if lines:
            kept.append(_type_of(lines))
    return " | ".join(kept)


class JobGraders:
    """``size`` warm grader processes for the service's jobs: :meth:`report` is a job's report, always."""

    def __init__(self, course_root: str, size: int, sandbox: SandboxKind, check_seconds: float) -> None:
        """Describe them; ``pool.start()`` starts them (each imports every challenge's tests)."""
        self.course_root = course_root
        self.sandbox: SandboxKind = sandbox
        self.check_seconds = check_seconds
        self.pool = Graders(size, ready=functools.partial(ready, course_root))
        self.stopping = threading.Event()

    def report(self, job: CheckJob) -> SubmissionReport:
        """The job's report; a grader error when its grader was lost, made by a fresh one if it can.

        Raises:
            GraderLost: only after :meth:`stop`, for a job whose grader it stopped.
        """
        check = functools.partial(check_in_grader, self.course_root, self.sandbox)
        try:
            report = self.pool.call(check, job, seconds=self.check_seconds, cancelled=self.stopping)
        except GraderLost as lost:
            if self.stopping.is_set():
                raise  # stopped under it: not recorded, it runs again at the next start
            why = without_code((lost.detail,)) if lost.reason is Lost.RAISED else lost.detail
            log.error("attempt %s: grader lost (%s): %s", job.attempt_id, lost.reason.value, why)
            try:
                failed = functools.partial(check, failure=lost.reason.value)
                report = self.pool.call(failed, job, seconds=self.check_seconds, cancelled=self.stopping)
            except GraderLost:
                return minimal_failure_report(job, self.sandbox)
        if report.grader_log:
            log.error("attempt %s: the grader failed: %s", job.attempt_id, without_code(report.grader_log))
        return report

    def stop(self) -> None:
        """End every grader process (a job still running is not recorded: it runs again later)."""
        self.stopping.set()
        self.pool.stop()
