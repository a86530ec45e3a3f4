"""The one pool of trusted worker processes: parallel work, crash handling and a watchdog.

``menace grade``, ``menace validate`` (the reference, the wrong solutions and the mutants)
and the Gradescope autograder run each submission in a worker process of a
:class:`WorkerPool`. The worker process is trusted grader code (it imports the hidden
tests and the reference); the student's code runs only in the sandboxed child that
:func:`~menace_course.checking.pipeline.check_submission` starts from it.

Each worker takes one task at a time, over a pipe of its own, so the pool always knows
which task each worker is on and since when:

* **A crash costs one task, not the batch.** A worker that dies (killed by the system, or
  by something a submission did to the grader) is replaced, and its task is run once more
  in a fresh worker; a task that kills its worker twice gets the result ``on_crash`` makes.
* **A watchdog bounds every task.** A task still running after its ``deadline`` has its
  worker killed (the sandboxed child dies with it: bubblewrap's ``--die-with-parent``, or
  the end of its pipes) and gets the result ``on_timeout`` makes. Nothing a submission
  does can keep a batch from finishing.
* **An exception in the task's function** is a bug of ours: it gets the result
  ``on_crash`` makes, with the traceback, and the worker goes on with the next task.

Workers start with the ``spawn`` method (the parent may hold a progress bar's thread and
a lock that a fork would copy), ignore Ctrl-C (the parent handles it) and end when the
parent is gone, even after ``kill -9``.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: How long a worker may take to start (spawn, import the grader) before it is replaced.
START_SECONDS = 120.0


def _serve(connection: Connection, parent: int) -> None:
    """A worker process: run each task it is sent and send back what came of it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        function, warm, task = message
        try:
            if warm is not None:
                warm(task)  # before the watchdog's clock starts (e.g. collecting a suite)
            connection.send(("begin", None))
            reply = ("ok", function(task))
        except Exception:  # our bug: the parent turns it into the task's result
            reply = ("error", traceback.format_exc())
        connection.send(reply)


@dataclass
class _Worker:
    process: BaseProcess
    connection: Connection


@dataclass
class _Running(Generic[T]):
    worker: _Worker
    task: T
    limit: float | None  #: the watchdog's limit once the task has begun
    deadline: float | None  #: when the watchdog stops it (starting, then running)
    retried: bool


class WorkerPool:
    """Up to ``jobs`` worker processes; use it as a context manager so they are always stopped.

    Example:
        with WorkerPool(jobs=2) as pool:
            for record in pool.run(grade_task, tasks, on_crash=crashed, on_timeout=stuck,
                                   seconds=lambda task: 90):
                store.save(record)
    """

    def __init__(self, jobs: int) -> None:
        """Prepare a pool of up to ``jobs`` processes (started when there is work)."""
        self.jobs = max(1, jobs)
        self._idle: list[_Worker] = []
        self._context = multiprocessing.get_context("spawn")

    def __enter__(self) -> WorkerPool:
        """Start using the pool."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stop every worker; work not started is dropped."""
        for worker in self._idle:
            self._stop(worker)
        self._idle = []

    def _start(self) -> _Worker:
        mine, theirs = self._context.Pipe()
        process = self._context.Process(target=_serve, args=(theirs, os.getpid()), daemon=True)
        process.start()
        theirs.close()
        return _Worker(process, mine)

    @staticmethod
    def _stop(worker: _Worker, *, kill: bool = False) -> None:
        if not kill:
            try:
                worker.connection.send(None)
            except (OSError, ValueError):
                kill = True
        if kill and worker.process.is_alive():
            worker.process.kill()
        worker.process.join(timeout=5)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.connection.close()

    def run(
        self,
        function: Callable[[T], R],
        tasks: Iterable[T],
        *,
        on_crash: Callable[[T, str], R],
        on_timeout: Callable[[T, float], R] | None = None,
        seconds: Callable[[T], float | None] = lambda task: None,
        warm: Callable[[T], object] | None = None,
    ) -> Iterator[R]:
        """Run ``function(task)`` for every task in the workers; yield each result when it is ready.

        Results come in the order they are ready, not the tasks' order. ``function`` and the
        tasks must be picklable (a module-level function and frozen dataclasses).

        Args:
            on_crash: the result of a task whose function raised (with the traceback) or
                whose worker died twice (with why).
            on_timeout: the result of a task still running after ``seconds(task)``; it must be
                given when ``seconds`` gives a number.
            seconds: the watchdog's limit for a task, in wall-clock seconds (None: no limit).
            warm: run in the worker before the task, outside the watchdog's limit (it has
                :data:`START_SECONDS`, with the worker's own start): to collect a suite, say.
        """
        queue: deque[tuple[T, bool]] = deque((task, False) for task in tasks)
        running: dict[Connection, _Running[T]] = {}
        try:
            while queue or running:
                while queue and (self._idle or len(running) < self.jobs):
                    task, retried = queue.popleft()
                    worker = self._idle.pop() if self._idle else self._start()
                    limit = seconds(task)
                    worker.connection.send((function, warm, task))
                    deadline = None if limit is None else time.monotonic() + START_SECONDS
                    running[worker.connection] = _Running(worker, task, limit, deadline, retried)
                yield from self._collect(running, queue, on_crash, on_timeout)
        finally:
            for job in running.values():  # interrupted (Ctrl-C, or the caller stopped reading)
                self._stop(job.worker, kill=True)

    def _collect(
        self,
        running: dict[Connection, _Running[T]],
        queue: deque[tuple[T, bool]],
        on_crash: Callable[[T, str], R],
        on_timeout: Callable[[T, float], R] | None,
    ) -> Iterator[R]:
        deadlines = [job.deadline for job in running.values() if job.deadline is not None]
        timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        for connection in wait(list(running), timeout):
            assert isinstance(connection, Connection)
            job = running.pop(connection)
            try:
                kind, value = connection.recv()
                if kind == "begin":
                    job.deadline = None if job.limit is None else time.monotonic() + job.limit
                    running[connection] = job
                    continue
            except (EOFError, OSError):  # the worker died
                self._stop(job.worker, kill=True)
                if job.retried:
                    yield on_crash(job.task, "the worker process grading it died, twice")
                else:
                    queue.appendleft((job.task, True))
                continue
            self._idle.append(job.worker)
            yield value if kind == "ok" else on_crash(job.task, value)
        now = time.monotonic()
        for connection, job in list(running.items()):
            if job.deadline is not None and now >= job.deadline:
                del running[connection]
                self._stop(job.worker, kill=True)
                assert on_timeout is not None, "a task with a time limit needs on_timeout"
                yield on_timeout(job.task, job.limit or START_SECONDS)
