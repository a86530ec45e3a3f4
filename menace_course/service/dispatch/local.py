"""The embedded dispatcher: an in-memory queue and the pool's warm grader processes.

    web threads ──accepting()/enqueue──▶ fair queue ──▶ N slot threads ──▶ JobGraders (N processes)
                                                      │ SubmissionReport
                                                      ▼
                                        Recorder.started / Recorder.finished (the database)

The grader processes (:class:`~.grading.JobGraders`, on :class:`~menace_course.pool.Graders`)
start at once, so that their suites are imported before the first student arrives. Each
check has ``check_seconds`` of wall clock; the pool's one policy decides what a lost grader
costs (a died one is tried once more on a fresh process; past that, or out of time, the
attempt gets a grader error, never the student's fault). The queue is bounded at
admission (:meth:`LocalPool.accepting`): accepted attempts always find a place, and
recovery after a crash bypasses the bound.
The queue is a :class:`~.fair.FairQueue`: a free slot takes the oldest check of the
student served least recently, so one student's flood never holds the graders for long,
and with two or more graders anonymous checks never hold the last one (it is kept for
signed-in students; :func:`~.fair.anonymous_share`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

from menace_course.models import SandboxKind, Status
from menace_course.pool import GraderLost
from menace_course.service.config import ServiceConfig, default_of
from menace_course.service.dispatch.base import CheckJob, Enqueue, QueueFull, Recorder
from menace_course.service.dispatch.fair import FairQueue
from menace_course.service.dispatch.grading import JobGraders
from menace_course.service.logs import bound

log = logging.getLogger("menace.service.dispatch")


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
        self._jobs = FairQueue(graders=workers)
        self._lock = threading.Lock()
        self._pending = 0  #: accepted (or reserved) and not yet finished
        self._events: dict[str, threading.Event] = {}
        self._threads: list[threading.Thread] = []
        self._graders = JobGraders(course_root, workers, sandbox, check_seconds)
        self._recorder: Recorder | None = None
        self._stopping = self._graders.stopping
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
        self._graders.pool.start()
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
        alive = self._graders.pool.alive()
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
        self._jobs.close()
        self._graders.stop()
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
                self._check(job)
            except GraderLost:  # stopped under it: it stays unfinished in the DB, to run again
                pass
            except Exception:  # never lose a slot: log, and the attempt stays unfinished in the DB
                log.exception("slot %d could not finish attempt %s", index, job.attempt_id)
            finally:
                self._jobs.done(job)
                with self._lock:
                    self._pending -= 1
                    event = self._events.pop(job.attempt_id, None)
                if event is not None:
                    event.set()

    def _check(self, job: CheckJob) -> None:
        assert self._recorder is not None
        if not self._recorder.started(job.attempt_id):
            return  # recorded already (a re-run after a crash that had finished it)
        began = time.monotonic()
        with bound(job.request_id):  # this check's log lines carry its request's id
            report = self._graders.report(job)
        self._seconds_per_check = 0.9 * self._seconds_per_check + 0.1 * (time.monotonic() - began)
        self.checked += 1
        if report.status is Status.GRADER_ERROR:
            self.grader_errors += 1
        self._recorder.finished(job.attempt_id, report)
