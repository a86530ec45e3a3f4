"""Grade many submissions at once: a pool of trusted worker processes, one sandbox per submission.

Each worker process is trusted grader code (it imports the hidden tests and the
reference); the student's code never runs in it, only in the sandboxed child that
:func:`~menace_course.checking.pipeline.check_submission` starts for each submission. A worker collects
the challenge's suite once, on its first task, and keeps it. Only plain dicts travel
between processes: a task (the entry and where the course is) goes in, a record comes out.

A worker that dies (killed by the system, say) breaks the whole pool. Then the tasks that
were in flight are run again one at a time, each in a fresh pool of its own, so a
submission that kills its worker twice is found out exactly and gets a ``grader_error``
row, and the others are graded as usual.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from pathlib import Path
from typing import Any

from menace_course.catalog import load_challenge
from menace_course.checking.loader import Source, read_submission
from menace_course.checking.pipeline import GRADER_FAILED, check_submission
from menace_course.checking.suite import Suite, collect
from menace_course.course import Course
from menace_course.errors import UsageError
from menace_course.grading.discover import entry_path
from menace_course.grading.record import make_record
from menace_course.models import LoadProblem, Status, SubmissionReport

Task = dict[str, Any]
Result = dict[str, Any]


def make_task(entry: dict[str, Any], root: Path, course: Course, slug: str, sandbox: str) -> Task:
    """Everything a worker process needs to grade one entry, as plain data."""
    return {"entry": entry, "root": str(root), "course": str(course.root), "slug": slug, "sandbox": sandbox}


@functools.cache
def worker_suite(course_root: str, slug: str) -> Suite:
    """The challenge's suite, collected once per process."""
    course = Course(Path(course_root))
    return collect(course, load_challenge(course, slug))


def _shown_name(entry: dict[str, Any]) -> Path:
    """The name the feedback gives the submission: the student's own file name, or the entry's."""
    return Path(entry.get("display_name") or entry["source"].rstrip("/"))


def _source(entry: dict[str, Any], root: Path) -> Source:
    name = _shown_name(entry)
    problem = entry.get("problem")
    if problem:
        return Source(name, "", Status.UNREADABLE, LoadProblem(problem["message"]))
    try:
        source = read_submission(entry_path(entry, root))
    except UsageError as error:  # the file went away after it was found
        return Source(name, "", Status.UNREADABLE, LoadProblem(str(error)))
    return replace(source, path=name)


def grade_task(task: Task) -> Result:
    """Grade one entry in this process (its code runs in a sandboxed child) and return its record."""
    entry = task["entry"]
    suite = worker_suite(task["course"], task["slug"])
    try:
        source = _source(entry, Path(task["root"]))
        report = check_submission(source, suite, task["sandbox"], student=entry["student"])
        return make_record(entry, report)
    except Exception:  # our bug must cost one row, never the batch; the instructor sees the traceback
        return grader_error_record(task, traceback.format_exc())


def grader_error_record(task: Task, why: str) -> Result:
    """The record of an entry the grader could not check: every test skipped, the reason kept."""
    entry = task["entry"]
    suite = worker_suite(task["course"], task["slug"])
    source = Source(_shown_name(entry), "", Status.GRADER_ERROR, LoadProblem(GRADER_FAILED))
    report: SubmissionReport = check_submission(source, suite, task["sandbox"], student=entry["student"])
    return make_record(entry, report, grader_error=why)


def _prepare_worker(parent: int) -> None:
    """Leave Ctrl-C to the parent, and end when the parent is gone (even after ``kill -9``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


class Batch:
    """A pool of worker processes; use as a context manager so it is always shut down.

    Example:
        with Batch(jobs=2) as batch:
            for record in batch.run(grade_task, tasks, on_crash=crash_record):
                store.save(record)
    """

    def __init__(self, jobs: int) -> None:
        """Prepare a pool of ``jobs`` processes (started on first use)."""
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> Batch:
        """Start using the pool."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Shut the pool down; work still queued is dropped."""
        self._close()

    def _new_pool(self, jobs: int) -> ProcessPoolExecutor:
        # spawn, not fork: the parent may hold a progress bar's thread and the OUT lock,
        # and a worker must inherit neither.
        return ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_prepare_worker,
            initargs=(os.getpid(),),
        )

    def _close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def run(
        self, function: Callable[[Task], Result], tasks: Iterable[Task], on_crash: Callable[[Task], Result]
    ) -> Iterator[Result]:
        """Run ``function`` on every task in parallel; yield each result as soon as it is ready.

        ``on_crash`` gives the result of a task that kills its worker process even alone.
        """
        queue = deque(tasks)
        while queue:
            suspects = yield from self._run_pooled(function, queue)
            for task in suspects:
                yield self._run_alone(function, task, on_crash)

    def _run_pooled(
        self, function: Callable[[Task], Result], queue: deque[Task]
    ) -> Generator[Result, None, list[Task]]:
        """Run tasks from ``queue`` in the pool; if the pool breaks, give back the tasks in flight."""
        if self._pool is None:
            self._pool = self._new_pool(self.jobs)
        in_flight: dict[Future[Result], Task] = {}
        try:
            while queue or in_flight:
                while queue and len(in_flight) < 2 * self.jobs:  # keep every worker busy
                    task = queue.popleft()
                    in_flight[self._pool.submit(function, task)] = task
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    result = future.result()
                    del in_flight[future]
                    yield result
        except BrokenProcessPool:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            return list(in_flight.values())
        return []

    def _run_alone(
        self, function: Callable[[Task], Result], task: Task, on_crash: Callable[[Task], Result]
    ) -> Result:
        pool = self._new_pool(1)
        try:
            return pool.submit(function, task).result()
        except BrokenProcessPool:
            return on_crash(task)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
