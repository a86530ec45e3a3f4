"""Run mutants of a reference as submissions, in parallel, and tell which ones the tests kill.

Each mutant goes through the same sandbox, proxy and runner as a student's file. A
mutant is *killed* by the first test that does not pass (or by failing to load); it
*survives* when every test passes, exactly as a student's file that would get full
marks. Stopping at the first failing test gives the same verdict as running them all,
in a fraction of the time, and names the test that caught it.

Mutants are judged in worker processes (two by default, one per core of the CI
machine): each worker collects the challenge's suite once and then judges mutant after
mutant. ``jobs=1`` judges them here, in this process.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from menace_course import catalog
from menace_course.authoring.mutants import Mutant
from menace_course.checking.pipeline import open_submission
from menace_course.checking.runner import run_case
from menace_course.checking.suite import Suite, collect
from menace_course.course import Course
from menace_course.errors import MenaceError
from menace_course.models import Outcome, SandboxKind, Status


@dataclass(frozen=True)
class Verdict:
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
        suite = collect(course, catalog.load_challenge(course, "after_game"))
        first_failure("def after_game(b, s, r):\\n    return b\\n", suite, "process")
        # -> 'example_1'
    """
    challenge = suite.challenge
    with open_submission(("mutant.py", source_text.encode()), challenge, kind) as opened:
        if opened.status is Status.NO_FUNCTION:
            return f"does not define {challenge.function}"
        if opened.proxy is None:
            return _WHY_NOT.get(opened.status, "does not load")
        for case in suite.cases:
            if run_case(case, opened.proxy).outcome is not Outcome.PASSED:
                return case.name
    return None


#: Why a mutant failed before any test, in the words the report uses.
_WHY_NOT = {
    Status.UNREADABLE: "does not parse",
    Status.SYNTAX_ERROR: "does not parse",
    Status.BAD_SIGNATURE: "does not take the challenge's arguments",
}


# -- in worker processes --------------------------------------------------------------------

_suites: dict[tuple[str, str], Suite] = {}


def _judge(course_root: str, slug: str, kind: SandboxKind, mutant_id: str, source: str) -> Verdict:
    """Judge one mutant (run in a worker process; the suite is collected once per process)."""
    key = (course_root, slug)
    if key not in _suites:
        course = Course(Path(course_root))
        _suites[key] = collect(course, catalog.load_challenge(course, slug))
    failed = first_failure(source, _suites[key], kind)
    return Verdict(mutant_id, failed is not None, failed)


class Judge:
    """Judges mutants of any challenge of one course; use it as a context manager.

    Example:
        with Judge(course, "process", jobs=2) as judge:
            verdicts = judge.judge_all("after_game", mutants)
    """

    def __init__(self, course: Course, kind: SandboxKind, jobs: int = 2) -> None:
        """Prepare; worker processes start at the first mutant."""
        self.course = course
        self.kind = kind
        self.jobs = max(1, jobs)
        self._pool: Executor | None = None

    def __enter__(self) -> Judge:
        """Nothing starts yet."""
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Stop the worker processes, dropping any work not started."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def judge_all(
        self, slug: str, mutants: Sequence[Mutant], tick: Callable[[], None] = lambda: None
    ) -> list[Verdict]:
        """A verdict for every mutant, in the mutants' order; ``tick`` is called after each.

        Raises:
            MenaceError: a worker process died (out of memory, killed from outside).
        """
        root = str(self.course.root)
        if self.jobs == 1:
            verdicts = []
            for mutant in mutants:
                verdicts.append(_judge(root, slug, self.kind, mutant.id, mutant.source))
                tick()
            return verdicts
        if self._pool is None:
            context = multiprocessing.get_context("spawn")  # no fork of a process with threads
            self._pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=context)
        futures: dict[Future[Verdict], int] = {
            self._pool.submit(_judge, root, slug, self.kind, m.id, m.source): n for n, m in enumerate(mutants)
        }
        found: dict[int, Verdict] = {}
        try:
            for future in as_completed(futures):
                found[futures[future]] = future.result()
                tick()
        except BrokenProcessPool as error:
            raise MenaceError(f"a worker judging the mutants of {slug} stopped: {error}") from error
        except Exception as error:  # a grader bug in a worker: one line, not a traceback
            raise MenaceError(
                f"judging the mutants of {slug} failed: {type(error).__name__}: {error}"
            ) from error
        return [found[n] for n in range(len(mutants))]
