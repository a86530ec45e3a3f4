"""Run mutants of a reference as submissions, in parallel, and tell which ones the tests kill.

Each mutant goes through the same sandbox, proxy and runner as a student's file. A
mutant is *killed* by the first test that does not pass (or by failing to load); it
*survives* when every test passes, exactly as a student's file that would get full
marks. Stopping at the first failing test gives the same verdict as running them all,
in a fraction of the time, and names the test that caught it.

Mutants, and the files validate checks (the reference, the starter, the wrong solutions),
are judged in the grader processes of one :class:`~menace_course.pool.Graders` (two by
default, one per core of the CI machine), each under its watchdog: each grader collects the
challenge's suite once and then judges task after task.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from menace_course import catalog
from menace_course.authoring.mutants import Mutant
from menace_course.authoring.oracle import Trace, trace_calls
from menace_course.authoring.state import tests_that_write
from menace_course.checking.pipeline import (
    GRADER_FAILED,
    Target,
    check_submission,
    open_submission,
    stopped_report,
    time_allowed,
)
from menace_course.checking.runner import SKIP_SWITCH, run_case
from menace_course.checking.suite import RUN_SUITES, Suite
from menace_course.course import Course
from menace_course.errors import MenaceError
from menace_course.models import Outcome, SandboxKind, Status, SubmissionReport
from menace_course.pool import GraderLost, Graders, Lost


@dataclass(frozen=True)
class MutantResult:
    """What the suite did to one mutant."""

    id: str
    killed: bool
    #: the test that failed first (its name, as in reports), or why the file did not run
    killed_by: str | None


def first_failure(source_text: str, suite: Suite, kind: SandboxKind) -> str | None:
    """The first test of ``suite`` that ``source_text`` fails, or None when it passes them all.

    A file that does not parse, load or define the function fails before any test; the
    answer then says so (``"does not load"``, ...).

    Example:
        suite = load_suite(course, "after_game")
        first_failure("def after_game(b, s, r):\\n    return b\\n", suite, "process")
        # -> 'example_1'
    """
    challenge = suite.challenge
    with open_submission(("mutant.py", source_text.encode()), Target.of(challenge), kind) as opened:
        if opened.status is Status.NO_FUNCTION:
            return f"does not define {challenge.function}"
        if opened.proxy is None:
            return _WHY_NOT.get(opened.status, "does not load")
        for case in suite.cases:
            outcome = run_case(case, opened.proxy).outcome
            if outcome is Outcome.GRADER_ERROR:
                return f"{case.name} (the test failed on its own: a grader error)"
            if outcome is not Outcome.PASSED:
                return case.name
    return None


#: Why a mutant failed before any test, in the words the report uses.
_WHY_NOT = {
    Status.UNREADABLE: "does not parse",
    Status.SYNTAX_ERROR: "does not parse",
    Status.BAD_SIGNATURE: "does not take the challenge's arguments",
}


# -- in grader processes --------------------------------------------------------------------


def _suite(course_root: Path, slug: str) -> Suite:
    """The challenge's suite, collected once per worker process (``suite.RUN_SUITES``)."""
    return RUN_SUITES.get(Course(course_root), slug)


#: What a piece of work on one submission gives (:meth:`Judge._each`).
Found = TypeVar("Found")


@dataclass(frozen=True)
class MutantTask:
    """One mutant to judge, as a grader process receives it."""

    course: Path
    slug: str
    kind: SandboxKind
    mutant_id: str
    source: str


@dataclass(frozen=True)
class CheckTask:
    """One submission to check (the reference, the starter, a wrong solution, a generated file)."""

    course: Path
    slug: str
    kind: SandboxKind
    index: int  #: its place among the submissions asked for
    submission: Path | tuple[str, bytes]
    times: int = 1  #: checked this many times in a row, in the same grader
    #: a test whose replies are all the reference's may pass without running (``runner.may_skip``)
    skip_known: bool = True


def _warm(task: MutantTask | CheckTask) -> None:
    _suite(task.course, task.slug)


def _judge(task: MutantTask) -> MutantResult:
    """Judge one mutant (in a grader process)."""
    failed = first_failure(task.source, _suite(task.course, task.slug), task.kind)
    return MutantResult(task.mutant_id, failed is not None, failed)


def _trace(task: CheckTask) -> tuple[int, Trace | None]:
    """The calls each test makes into one submission (in a grader process)."""
    return task.index, trace_calls(task.submission, _suite(task.course, task.slug), task.kind)


def _writes(task: CheckTask) -> tuple[int, tuple[str, ...] | None]:
    """The tests that changed the state of a module that says they share none (in a grader process)."""
    return task.index, tests_that_write(task.submission, _suite(task.course, task.slug), task.kind)


def _check(task: CheckTask) -> tuple[int, tuple[SubmissionReport, ...]]:
    """Check one submission as ``menace check`` would (in a grader process), ``times`` times."""
    suite = _suite(task.course, task.slug)
    with _skipping(task.skip_known):
        reports = tuple(check_submission(task.submission, suite, task.kind) for _ in range(task.times))
    return task.index, reports


@contextlib.contextmanager
def _skipping(allowed: bool) -> Iterator[None]:
    """While it lasts, this grader process skips known tests only when ``allowed`` (``MENACE_SKIP_KNOWN``)."""
    before = os.environ.get(SKIP_SWITCH)
    if not allowed:
        os.environ[SKIP_SWITCH] = "off"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(SKIP_SWITCH, None)
        else:
            os.environ[SKIP_SWITCH] = before


class Judge:
    """Judges files and mutants of any challenge of one course, in :class:`~menace_course.pool.Graders`.

    Every file and mutant is judged under the pool's watchdog
    (:func:`~menace_course.checking.pipeline.time_allowed`): one that would hang the grader is
    stopped, and counts as failing. Use it as a context manager.

    Example:
        with Judge(course, "process", jobs=2) as judge:
            reports = judge.check_files("after_game", [course.reference_dir / "after_game.py"])
            verdicts = judge.judge_all("after_game", mutants)
    """

    def __init__(self, course: Course, kind: SandboxKind, jobs: int = 2) -> None:
        """Prepare; grader processes start at the first task."""
        self.course = course
        self.kind = kind
        self.jobs = max(1, jobs)
        self._pool = Graders(self.jobs)

    def __enter__(self) -> Judge:
        """Nothing starts yet."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stop the grader processes, dropping any work not started."""
        self._pool.__exit__(*exc_info)

    def _seconds(self, slug: str) -> float:
        return time_allowed(catalog.load_challenge(self.course, slug).limits)

    def check(
        self, slug: str, submissions: Sequence[Path | tuple[str, bytes]], skip_known: bool = True
    ) -> list[SubmissionReport]:
        """Check each submission against the challenge ``slug``, as ``menace check`` would, in order.

        A submission is a path (a file or a folder) or a ``(filename, bytes)`` pair.
        ``skip_known=False``: every test's code runs, even where every reply is the
        reference's (:func:`~menace_course.checking.runner.may_skip`).
        """
        found = dict(self._run(slug, submissions, times=1, skip_known=skip_known))
        return [found[index][0] for index in range(len(submissions))]

    def check_files(self, slug: str, paths: Sequence[Path]) -> list[SubmissionReport]:
        """:meth:`check` for files (and folders)."""
        return self.check(slug, list(paths))

    def check_twice(self, slug: str, path: Path) -> tuple[SubmissionReport, SubmissionReport]:
        """Check one file twice in a row in one grader (state kept between runs would show)."""
        ((_, reports),) = self._run(slug, [path], times=2)
        return reports[0], reports[-1]

    def _run(
        self, slug: str, submissions: Sequence[Path | tuple[str, bytes]], times: int, skip_known: bool = True
    ) -> list[tuple[int, tuple[SubmissionReport, ...]]]:
        seconds = self._seconds(slug) * times
        suite = _suite(self.course.root, slug)
        tasks = [
            CheckTask(self.course.root, slug, self.kind, index, submission, times, skip_known)
            for index, submission in enumerate(submissions)
        ]

        def name_of(task: CheckTask) -> Path:
            return Path(task.submission.name if isinstance(task.submission, Path) else task.submission[0])

        def lost(task: CheckTask, lost: GraderLost) -> tuple[int, tuple[SubmissionReport, ...]]:
            if lost.reason is Lost.TIMEOUT:
                message = f"checking it did not finish within {lost.seconds:g} seconds, so it was stopped"
                report = stopped_report(suite, name_of(task), task.kind, Status.TIMEOUT, message)
                return task.index, (report,) * times
            report = stopped_report(suite, name_of(task), task.kind, Status.GRADER_ERROR, GRADER_FAILED)
            return task.index, (replace(report, grader_log=(lost.detail,)),) * times

        return list(self._pool.run(_check, tasks, on_lost=lost, seconds=lambda _: seconds, warm=_warm))

    def trace(self, slug: str, submissions: Sequence[Path | tuple[str, bytes]]) -> list[Trace | None]:
        """The calls each test makes into each submission, in order (see :mod:`~.oracle`).

        None for a submission that did not load, or that the watchdog stopped.
        """
        return self._each(slug, submissions, _trace)

    def writes(
        self, slug: str, submissions: Sequence[Path | tuple[str, bytes]]
    ) -> list[tuple[str, ...] | None]:
        """For each submission, the tests that changed a module that says its tests share no state.

        Each as ``test: names`` (:func:`~menace_course.authoring.state.tests_that_write`);
        None for a submission that did not load, or that the watchdog stopped.
        """
        return self._each(slug, submissions, _writes)

    def _each(
        self,
        slug: str,
        submissions: Sequence[Path | tuple[str, bytes]],
        work: Callable[[CheckTask], tuple[int, Found | None]],
    ) -> list[Found | None]:
        """``work`` on each submission in the pool, in order; None where the watchdog stopped it."""
        seconds = self._seconds(slug)
        tasks = [
            CheckTask(self.course.root, slug, self.kind, index, submission)
            for index, submission in enumerate(submissions)
        ]

        def lost(task: CheckTask, _: GraderLost) -> tuple[int, Found | None]:
            return task.index, None

        found = dict(self._pool.run(work, tasks, on_lost=lost, seconds=lambda _: seconds, warm=_warm))
        return [found.get(index) for index in range(len(submissions))]

    def judge_all(
        self, slug: str, mutants: Sequence[Mutant], tick: Callable[[], None] = lambda: None
    ) -> list[MutantResult]:
        """A verdict for every mutant, in the mutants' order; ``tick`` is called after each.

        Raises:
            MenaceError: judging a mutant failed in the grader itself (a bug, with its last line).
        """
        seconds = self._seconds(slug)
        tasks = [MutantTask(self.course.root, slug, self.kind, m.id, m.source) for m in mutants]

        def lost(task: MutantTask, lost: GraderLost) -> MutantResult:
            if lost.reason is Lost.TIMEOUT:
                return MutantResult(task.mutant_id, True, f"the watchdog ({lost.seconds:g} s)")
            last = lost.detail.strip().splitlines()[-1]
            raise MenaceError(f"judging the mutant {task.mutant_id} of {slug} failed: {last}")

        found: dict[str, MutantResult] = {}
        for verdict in self._pool.run(_judge, tasks, on_lost=lost, seconds=lambda _: seconds, warm=_warm):
            found[verdict.id] = verdict
            tick()
        return [found[m.id] for m in mutants]
