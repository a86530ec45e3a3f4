"""The one way a submission is checked: every entry point calls these, none has its own.

``menace check``, ``menace grade``, the Gradescope autograder, the nbgrader notebook's
checks, ``menace validate``, the hidden tests' ``conftest.py`` and the check service all go
through :func:`check_submission` (or, when they run tests of their own, through
:func:`open_submission`), so a file gets the same verdict whichever way it comes in::

    path (file or folder) ──entry.pick_file──▶ the file ──loader──▶ Source
    (filename, bytes) ─────────────────────────────────────loader──▶ Source
                                │  (unreadable / syntax error?) ──▶ report, nothing run
               sandboxed child imports it ──(raised / hung / died?)──▶ report
                                │
               the function exists and takes the arguments? ──(no)──▶ report
                                │
               SubmissionProxy ──runner.run_cases(suite)──▶ TestResults ──▶ SubmissionReport

A fault of the grader itself (a bug in a test or in this package) never reaches the
student as a traceback: the report's status is ``grader_error`` and the traceback is in
:attr:`~menace_course.models.SubmissionReport.grader_log`, which is kept out of the
report's JSON (the instructor's record stores it apart).

Example:
    suite = load_suite(course, "after_game")
    report = check_submission(("after_game.py", data), suite, "bwrap")
    report = check_submission(Path("submissions/alice/"), suite, "bwrap", student="alice")
"""

from __future__ import annotations

import functools
import sys
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from menace_course import __version__
from menace_course.catalog import Challenge
from menace_course.checking.loader import Source, read_bytes, read_submission
from menace_course.checking.plan import plans_for
from menace_course.checking.problems import function_problem, load_problem, skipped
from menace_course.checking.proxy import SubmissionProxy
from menace_course.checking.replay import hypothesis_version
from menace_course.checking.runner import run_cases
from menace_course.checking.suite import Suite
from menace_course.errors import MenaceError
from menace_course.limits import Limits
from menace_course.models import (
    Finding,
    LoadProblem,
    SandboxKind,
    Status,
    SubmissionReport,
    TestKind,
    TestResult,
)
from menace_course.sandbox import spare, zygote
from menace_course.sandbox.child import Child
from menace_course.sandbox.outcomes import SandboxFailure
from menace_course.sandbox.scan import findings

#: A submission as the entry points have it: a path (a file or a folder), a file's name
#: and bytes (an upload), or a :class:`Source` already read.
Submission = Path | tuple[str, bytes] | Source

#: What a student reads when the grader, not their file, failed.
GRADER_FAILED = (
    "the grader failed while checking this file; this is not your mistake, and your teacher can see why"
)
#: Seconds on top of a submission's own limits for the grader's work (tests, shrinking).
GRADER_SECONDS = 30.0


def time_allowed(limits: Limits) -> float:
    """The longest the whole check of one submission may take before a watchdog stops it.

    The child's own limits (loading, and the budget of all calls) bound the student's
    code; this bounds everything, the grader's side included (issue 8, item 1).
    """
    return limits.import_seconds + limits.budget_seconds + GRADER_SECONDS


def stopped_report(
    suite: Suite,
    file: Path,
    sandbox: SandboxKind,
    status: Status,
    message: str,
    student: str | None = None,
) -> SubmissionReport:
    """The report of a submission whose check was stopped, or never ran: every test skipped."""
    source = Source(file, "", status, LoadProblem(message))
    tests = skipped(
        suite, "not run: " + ("the grader failed" if status is Status.GRADER_ERROR else "it was stopped")
    )
    return _report(suite, source, status, tests, source.problem, None, sandbox, time.monotonic(), student)


@dataclass(frozen=True)
class Target:
    """What opening a submission needs to know of what it answers, and nothing else.

    The function it must define and the arguments that function takes, the limits of the
    child that loads it, and the slug (which file of a folder is chosen by it). A
    challenge's is :meth:`of`; a program that is not a challenge (a lesson's program,
    ``service/lesson/programs.py``) makes its own, so nothing fabricates a challenge.

    Example:
        Target("lesson_program", "run_lesson_program", (), Limits())
        Target.of(load_challenge(course, "after_game"))
    """

    slug: str
    function: str
    params: tuple[str, ...]
    limits: Limits

    @classmethod
    def of(cls, challenge: Challenge) -> Target:
        """The target a challenge's submissions are opened for."""
        return cls(challenge.slug, challenge.function, tuple(challenge.params), challenge.limits)


def read_source(submission: Submission, target: Target) -> Source:
    """Read a submission into a :class:`Source`, choosing the file in a folder (``entry``'s rule).

    Raises:
        UsageError: a path that does not exist (the user's mistake, exit 2).
    """
    if isinstance(submission, Source):
        return submission
    if isinstance(submission, tuple):
        filename, data = submission
        return read_bytes(filename, data)
    from menace_course.checking.entry import pick_file  # a folder's walk: not needed for a file

    choice = pick_file(submission, target.function, target.slug)
    if choice.file is None:
        assert choice.problem is not None
        status = Status.NO_FUNCTION if choice.problem.code == "no_function" else Status.UNREADABLE
        name = Path(submission.name)
        return Source(name, "", status, LoadProblem(choice.problem.message), notices=choice.notes)
    source = read_submission(choice.file.path)
    return replace(source, path=Path(choice.file.shown), notices=choice.notes + source.notices)


@dataclass(frozen=True)
class Opened:
    """A submission opened for testing: a proxy to call it, or why it cannot be tested."""

    source: Source
    status: Status  #: ``checked`` when :attr:`proxy` is ready; otherwise why not
    problem: LoadProblem | None = None
    printed: str | None = None  #: what the file printed while it loaded
    proxy: SubmissionProxy | None = None
    why_not: str = ""  #: when there is no proxy: why no test can run, in a few words
    worker: Child | None = None  #: the child (closed when the ``with`` block ends)

    def integrity(self) -> tuple[Finding, ...]:
        """Signs of tampering so far: in the file's text, and what the child tried while it ran."""
        return findings(self.source.text, self.worker.attempts if self.worker is not None else ())

    def unconfined(self) -> tuple[str, ...]:
        """A notice naming each limit the sandbox could not apply on this machine (none: empty)."""
        confinement = self.worker.confinement if self.worker is not None else None
        if confinement is None or not confinement.missing:
            return ()
        return (
            f"The sandbox could not apply these limits on this machine: {', '.join(confinement.missing)}.",
        )


def start_child(source: Source, target: Target, sandbox: SandboxKind) -> Child | None:
    """Start the sandboxed child for ``source`` now, so it loads while the caller gets ready.

    Hand it to :func:`open_submission` or :func:`check_submission` (``child=``), which close it.
    """
    if source.status is not Status.CHECKED:
        return None
    return child_for(source, sandbox, target.limits).spawn()


def child_for(source: Source, sandbox: SandboxKind, limits: Limits) -> Child:
    """The child for ``source``: a notebook's runs its cells one by one.

    In a grader process, the spare started after the last task when it matches
    (:mod:`~menace_course.sandbox.spare`, already running); otherwise a child not yet started.
    """
    cells = source.cells.code_spans if source.cells is not None else None
    _keep_spares()
    ready = spare.claim(sandbox, limits)
    if ready is not None:
        return ready.assign(source.text, cells)
    return Child(source.text, sandbox, limits, cells=cells)


@functools.cache
def _keep_spares() -> None:
    """In a grader process (:mod:`menace_course.pool`), start each next sandbox between tasks.

    A grader process has imported the pool (it runs ``pool.serve``); a process that has not
    is not one, and need not pay for importing it (``menace check`` checks one file).
    """
    if "menace_course.pool" not in sys.modules:
        return
    from menace_course import pool

    if pool.between_tasks(spare.refill):
        spare.enable()
        zygote.enable()  # file after file: each sandbox forked from one started Python


@contextmanager
def open_submission(
    submission: Submission,
    target: Target,
    sandbox: SandboxKind,
    *,
    limits: Limits | None = None,
    child: Child | None = None,
) -> Iterator[Opened]:
    """Read a submission, load it in a sandboxed child, and give a proxy that calls it.

    The child is killed when the ``with`` block ends, however it ends. When the file
    cannot be read, loaded or tested, :attr:`Opened.proxy` is None and the rest says why.

    ``target`` is what the file must define (:class:`Target`; a challenge's is
    ``Target.of(challenge)``); ``limits``, when given, are used in place of the target's own.

    Example:
        with open_submission(Path("after_game.py"), Target.of(challenge), "bwrap") as opened:
            if opened.proxy is not None:
                opened.proxy.after_game([4] * 9, 0, "win")
    """
    source = read_source(submission, target)
    if source.status is not Status.CHECKED:
        if child is not None:
            child.close()
        yield Opened(source, source.status, source.problem, why_not="the file could not be read")
        return
    limits = limits or target.limits
    worker = child or child_for(source, sandbox, limits)
    try:
        worker, opened = _load(worker, source, target, sandbox, limits)
        yield replace(opened, worker=worker)
    finally:
        worker.close()


def _load(
    worker: Child, source: Source, target: Target, sandbox: SandboxKind, limits: Limits
) -> tuple[Child, Opened]:
    """Load the file in the child, once; a notebook's cell that stops is noted, as Jupyter shows it."""
    name = source.path.name
    try:
        load = worker.load()
        if source.cells is not None and load.cells_failed:
            # The child ran the cells one by one (checking/notebook.py): say which stopped.
            from menace_course.checking.notebook import cell_notes, with_notes

            notes = cell_notes(source.cells, load.cell_errors, load.cells_failed)
            source = replace(source, notices=with_notes(source.notices, notes))
    except SandboxFailure as failure:
        problem = LoadProblem(f"the sandbox could not start on this machine: {failure}")
        return worker, Opened(source, Status.GRADER_ERROR, problem, why_not="the sandbox failed")
    printed = load.printed.text or None
    if load.status != "ready":
        problem = load_problem(load, name)
        return worker, Opened(source, Status.LOAD_ERROR, problem, printed, why_not="the file did not load")
    trouble = function_problem(target, load.functions, name, source.text)
    if trouble is not None:
        status, problem = trouble
        return worker, Opened(source, status, problem, printed, why_not=problem.message)
    return worker, Opened(source, Status.CHECKED, None, printed, SubmissionProxy(worker, load.functions))


def check_submission(
    submission: Submission,
    suite: Suite,
    sandbox: SandboxKind,
    *,
    student: str | None = None,
    child: Child | None = None,
) -> SubmissionReport:
    """Check one submission against one challenge's suite and describe everything found.

    Args:
        submission: a path (a ``.py`` or ``.ipynb`` file, or a folder: the file is chosen
            by the rule in :mod:`~menace_course.checking.entry`), a ``(filename, bytes)``
            pair, or a :class:`Source` already read.
        suite: the challenge's tests (:func:`~menace_course.checking.suite.load_suite`).
        sandbox: ``bwrap`` or ``process`` (:func:`~menace_course.sandbox.launch.choose_kind`).
        student: who handed it in, kept in the report.
        child: a child already started by :func:`start_child` (closed here either way).

    Returns:
        The report; a fault of the grader gives status ``grader_error`` with the traceback
        in ``grader_log`` (never in the report's JSON).

    Raises:
        UsageError: a path that does not exist.
    """
    started = time.monotonic()
    challenge = suite.challenge
    printed: str | None = None
    try:
        with open_submission(submission, Target.of(challenge), sandbox, child=child) as opened:
            source, printed = opened.source, opened.printed
            if opened.proxy is None:
                tests = skipped(suite, f"not run: {opened.why_not}")
                report = _report(
                    suite, source, opened.status, tests, opened.problem, printed, sandbox, started, student
                )
                return replace(
                    report, integrity=opened.integrity(), notices=report.notices + opened.unconfined()
                )
            ran = run_cases(suite.cases, opened.proxy, plans_for(suite))
            integrity, unconfined = opened.integrity(), opened.unconfined()
    except MenaceError:
        raise
    except Exception:  # our bug, or a test's: the instructor gets the traceback, the student a plain line
        name = _name_of(submission)
        report = stopped_report(suite, name, sandbox, Status.GRADER_ERROR, GRADER_FAILED, student)
        return replace(report, grader_log=(traceback.format_exc(),))
    report = _report(suite, source, Status.CHECKED, ran.results, None, printed, sandbox, started, student)
    report = replace(report, integrity=integrity, notices=report.notices + unconfined)
    return replace(report, grader_log=ran.grader_log) if ran.grader_log else report


def _name_of(submission: Submission) -> Path:
    if isinstance(submission, Source):
        return Path(submission.path.name)
    if isinstance(submission, tuple):
        return Path(Path(submission[0]).name or "submission.py")
    return Path(submission.name)


def _hypothesis_stamp(suite: Suite) -> str:
    """The hypothesis version, when hidden tests (hypothesis tests) are part of the suite."""
    if all(case.kind is TestKind.EXAMPLE for case in suite.cases):
        return ""
    return hypothesis_version()


def _report(
    suite: Suite,
    source: Source,
    status: Status,
    tests: tuple[TestResult, ...],
    problem: LoadProblem | None,
    printed: str | None,
    sandbox: SandboxKind,
    started: float,
    student: str | None,
) -> SubmissionReport:
    challenge = suite.challenge
    report = SubmissionReport(
        challenge=challenge.slug,
        title=challenge.title,
        function=challenge.function,
        file=source.path.name,
        sandbox=sandbox,
        status=status,
        tests=tests,
        score=sum(t.points for t in tests),
        max_score=sum(t.max_points for t in tests),
        load_problem=problem,
        hidden_not_run=suite.hidden_not_run,
        printed_at_load=printed,
        notices=source.notices,
        # bounded by the limits (a student sees it rounded: student_view), so it is a small channel
        seconds=round(min(time.monotonic() - started, time_allowed(challenge.limits)), 3),
        suite_hash=suite.suite_hash,
        version=__version__,
        hypothesis_version=_hypothesis_stamp(suite),
        student=student,
        params=tuple(challenge.params),
    )
    # A notebook's lines are named by cell (cell 3, line 2), not by line of the joined code.
    if source.cells is None:
        return report
    from menace_course.checking.notebook import in_cells  # a notebook's reader, for a notebook only

    return in_cells(report, source.cells)
