"""The embedded dispatcher: an in-memory queue and a pool of warm grader processes.

    web threads ──accepting()/enqueue──▶ fair queue ──▶ N slots, one thread and one grader process each
                                                      │ job over a pipe, report back
                                                      ▼
                                        Recorder.started / Recorder.finished (the database)

Each slot owns one grader process (:func:`~.grading.grader_main`), started at once so
that its suites are imported before the first student arrives. A slot gives each check
``check_seconds`` of wall clock; past that, or if the grader process dies, the process is
killed and replaced. A job whose grader died is tried once more on a fresh process; if
that dies too, or the time ran out, the attempt is recorded with a grader error (never
the student's fault). The queue is bounded at admission (:meth:`LocalPool.accepting`):
accepted attempts always find a place, and recovery after a crash bypasses the bound.
The queue is a :class:`~.fair.FairQueue`: a free slot takes the oldest check of the
student served least recently, so one student's flood never holds the graders for long.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

from menace_course.checking.pipeline import GRADER_FAILED
from menace_course.models import LoadProblem, SandboxKind, Status, SubmissionReport
from menace_course.service.config import ServiceConfig, default_of
from menace_course.service.dispatch.base import CheckJob, Enqueue, QueueFull, Recorder
from menace_course.service.dispatch.fair import FairQueue
from menace_course.service.logs import bound

log = logging.getLogger("menace.service.dispatch")
#: Seconds a new grader process may take to import the course's tests.
STARTUP_SECONDS = 120.0


class GraderGone(Exception):
    """The grader process died or stopped answering."""


class GraderProcess:
    """One warm grader process (``python -m menace_course.service.dispatch.grading``) and the pipe to it.

    A plain child process, not ``multiprocessing``: it imports nothing of the web process
    (no re-import of ``__main__``), and killing it takes its sandboxed child with it.
    """

    def __init__(self, course_root: str, sandbox: SandboxKind) -> None:
        """Start the process; it imports the course's tests before it says it is ready."""
        ours, theirs = socket.socketpair()
        argv = [sys.executable, "-P", "-m", "menace_course.service.dispatch.grading"]
        argv += [str(theirs.fileno()), course_root, sandbox, str(os.getpid())]
        try:
            self.process = subprocess.Popen(
                argv, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, start_new_session=True
            )
        finally:
            theirs.close()
        self._conn = Connection(ours.detach())
        self.ready = False

    def await_ready(self, seconds: float = STARTUP_SECONDS) -> None:
        """Wait for the process to have imported the tests.

        Raises:
            GraderGone: it died, reported a broken course, or took too long.
        """
        hello = self._receive(seconds)
        if not hello.get("ready"):
            raise GraderGone(f"the grader could not load the course: {hello.get('error')}")
        self.ready = True

    def run(self, job: CheckJob, seconds: float, failure: str | None = None) -> dict[str, Any]:
        """Send one job; its reply within ``seconds``, else :class:`GraderGone` (the process is killed)."""
        if not self.ready:
            self.await_ready()
        try:
            self._conn.send({"job": job.to_dict(), "failure": failure})
        except (OSError, ValueError) as error:
            raise GraderGone(f"the grader process is gone ({error})") from error
        return self._receive(seconds)

    def _receive(self, seconds: float) -> dict[str, Any]:
        try:
            if not self._conn.poll(seconds):
                self.kill()
                raise GraderGone(f"no answer within {seconds:g} s")
            reply: dict[str, Any] = self._conn.recv()
        except (EOFError, OSError) as error:
            self.kill()
            raise GraderGone(f"the grader process died (exit code {self.process.poll()})") from error
        return reply

    def alive(self) -> bool:
        """True while the process runs."""
        return self.process.poll() is None

    def kill(self) -> None:
        """End the process now (its sandboxed child dies with it)."""
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        self._conn.close()

    def stop(self) -> None:
        """Ask the process to end, and make sure it does."""
        with contextlib.suppress(OSError, ValueError):
            self._conn.send(None)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=2)
        self.kill()


def minimal_failure_report(job: CheckJob, sandbox: str) -> dict[str, Any]:
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
    ).to_dict()


class LocalPool:
    """The embedded :class:`~.base.Dispatcher` (see the module's docstring)."""

    def __init__(
        self,
        course_root: str,
        workers: int,
        sandbox: SandboxKind,
        check_seconds: float = default_of("check_seconds"),
        max_queue: int = default_of("max_queue"),
    ) -> None:
        """Describe the pool; nothing starts before :meth:`start`."""
        self.course_root = course_root
        self.workers = workers
        self.sandbox: SandboxKind = sandbox
        self.check_seconds = check_seconds
        self.max_queue = max_queue
        self._jobs = FairQueue()
        self._lock = threading.Lock()
        self._pending = 0  #: accepted (or reserved) and not yet finished
        self._events: dict[str, threading.Event] = {}
        self._threads: list[threading.Thread] = []
        self._graders: list[GraderProcess | None] = []
        self._recorder: Recorder | None = None
        self._stopping = threading.Event()
        self._seconds_per_check = 0.3  #: a running mean, for Retry-After
        self.checked = 0
        self.grader_errors = 0

    @classmethod
    def of(cls, config: ServiceConfig) -> LocalPool:
        """The pool ``config`` describes."""
        return cls(str(config.course), config.workers, config.sandbox, config.check_seconds, config.max_queue)

    # -- the Dispatcher protocol ---------------------------------------------------------

    def start(self, recorder: Recorder, backlog: list[CheckJob]) -> None:
        """Start the grader processes and their threads; queue the backlog first."""
        self._recorder = recorder
        for job in backlog:
            self._put(job, reserved=False)
        if backlog:
            log.warning("re-running %d accepted check(s) that were not finished", len(backlog))
        self._graders = [None] * self.workers
        for index in range(self.workers):
            self._graders[index] = GraderProcess(self.course_root, self.sandbox)
        for index in range(self.workers):
            thread = threading.Thread(
                target=self._serve, args=(index,), name=f"grader-slot-{index}", daemon=True
            )
            thread.start()
            self._threads.append(thread)

    @contextlib.contextmanager
    def accepting(self) -> Iterator[Enqueue]:
        """Reserve a place in the queue (or :class:`QueueFull`); hand out ``enqueue`` for it."""
        with self._lock:
            if self._stopping.is_set() or self._pending >= self.max_queue:
                raise QueueFull(self._retry_after())
            self._pending += 1
        used = False

        def enqueue(job: CheckJob) -> None:
            nonlocal used
            if used:
                raise RuntimeError("one reservation, one job")
            used = True
            self._put(job, reserved=True)

        try:
            yield enqueue
        finally:
            if not used:
                with self._lock:
                    self._pending -= 1

    def wait(self, attempt_id: str, timeout: float) -> None:
        """Block until the attempt is finished here, or ``timeout`` passes."""
        event = self._events.get(attempt_id)
        if event is not None and timeout > 0:
            event.wait(timeout)

    def depth(self) -> int:
        """Checks accepted and not finished."""
        return self._pending

    def health(self) -> dict[str, Any]:
        """Whether the graders are alive, and how busy they are."""
        alive = sum(1 for g in self._graders if g is not None and g.alive())
        return {
            "ok": alive > 0 and not self._stopping.is_set(),
            "dispatcher": "local",
            "workers": alive,
            "queued": self._pending,
            "checked": self.checked,
            "grader_errors": self.grader_errors,
        }

    def stop(self) -> None:
        """End the slots and the grader processes; queued checks stay in the database."""
        self._stopping.set()
        self._jobs.close()
        for grader in self._graders:
            if grader is not None:
                grader.stop()
        for thread in self._threads:
            thread.join(timeout=5)

    # -- inside ---------------------------------------------------------------------------

    def _put(self, job: CheckJob, reserved: bool) -> None:
        with self._lock:
            if not reserved:
                self._pending += 1
            self._events[job.attempt_id] = threading.Event()
        self._jobs.put(job)

    def _retry_after(self) -> int:
        return max(1, round(self._pending * self._seconds_per_check / max(1, self.workers)))

    def _serve(self, index: int) -> None:
        while not self._stopping.is_set():
            job = self._jobs.get()
            if job is None:
                return
            try:
                self._check(index, job)
            except Exception:  # never lose a slot: log, and the attempt stays unfinished in the DB
                log.exception("slot %d could not finish attempt %s", index, job.attempt_id)
            finally:
                with self._lock:
                    self._pending -= 1
                    event = self._events.pop(job.attempt_id, None)
                if event is not None:
                    event.set()

    def _grader(self, index: int) -> GraderProcess:
        grader = self._graders[index]
        if grader is None or not grader.alive():
            if grader is not None:
                grader.kill()
            grader = self._graders[index] = GraderProcess(self.course_root, self.sandbox)
        return grader

    def _check(self, index: int, job: CheckJob) -> None:
        assert self._recorder is not None
        if not self._recorder.started(job.attempt_id):
            return  # recorded already (a re-run after a crash that had finished it)
        began = time.monotonic()
        with bound(job.request_id):  # this check's log lines carry its request's id
            report = self._run(index, job)
        self._seconds_per_check = 0.9 * self._seconds_per_check + 0.1 * (time.monotonic() - began)
        self.checked += 1
        if report.get("status") == Status.GRADER_ERROR.value:
            self.grader_errors += 1
        self._recorder.finished(job.attempt_id, report)

    def _run(self, index: int, job: CheckJob) -> dict[str, Any]:
        """The job's report: run it, once more on a fresh process if its grader died, else a grader error."""
        failure = ""
        for _ in range(2):
            try:
                reply = self._grader(index).run(job, self.check_seconds)
            except GraderGone as gone:
                failure = str(gone)
                log.error("attempt %s: %s", job.attempt_id, failure)
                if "no answer within" in failure:
                    break  # a check that ran out of time would only run out again
                continue
            if "error" in reply:
                log.error("attempt %s: the grader failed: %s", job.attempt_id, reply["error"])
            if "report" in reply:
                report: dict[str, Any] = reply["report"]
                return report
            failure = str(reply.get("error"))
            break
        try:
            report = self._grader(index).run(job, self.check_seconds, failure=failure or "unknown")["report"]
            return report
        except (GraderGone, KeyError):
            return minimal_failure_report(job, self.sandbox)
