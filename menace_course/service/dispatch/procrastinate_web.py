"""The web process's side of the distributed queue: :class:`ProcrastinateDispatcher`.

With ``menace serve --queue procrastinate`` the web process accepts, stores and answers; it
never starts a grader. For each check it stores the attempt (committed), then defers
``menace:check(attempt_id)``; ``menace worker`` processes, here or on other machines, do the
rest (:mod:`.procrastinate_queue`).

Admission (HTTP 429 with Retry-After) is decided on the whole service's queue, not this
process's: a quick refusal here from the number of attempts accepted and not yet done
(read from the database at most every :data:`DEPTH_TTL` seconds), and the exact count in
the transaction that stores the attempt
(:func:`~menace_course.service.db.attempts.admit_attempt`, which also counts
``--per-student``). The line is by priority, then first come, first served (a job given
back after its worker died keeps its place); the priority is ``-ahead`` (a student's
second waiting check goes after everyone's first, :func:`~.procrastinate_queue.defer_check`),
so a flooding student never holds the workers, and nobody waits longer than the queue's
limit divided by the service's throughput.

``?wait`` sleeps on an event that a listener thread sets when PostgreSQL delivers the
worker's ``NOTIFY`` for the attempt; it also re-reads the attempt every
:data:`POLL_SECONDS`, so a lost notice (a reconnect) costs a moment, never the answer.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import math
import threading
import time
from collections.abc import Iterator
from typing import Any

import procrastinate
import psycopg
from sqlalchemy import func, select

from menace_course.service.config import ServiceConfig
from menace_course.service.db.engine import Database
from menace_course.service.db.tables import Attempt, AttemptStatus, now
from menace_course.service.dispatch.base import SERVICE_IS_STOPPING, CheckJob, Enqueue, QueueFull, Recorder
from menace_course.service.dispatch.procrastinate_queue import (
    DONE_CHANNEL,
    QueueFacts,
    conninfo,
    defer_check,
    ensure_schema,
    make_app,
    queue_facts,
)
from menace_course.service.state import DatabaseRecorder

log = logging.getLogger("menace.service.dispatch")
#: Seconds a count of the waiting checks is reused before the database is asked again.
DEPTH_TTL = 0.5
#: Seconds between re-reads of an attempt while a ``?wait`` sleeps (the notice usually comes first).
POLL_SECONDS = 2.0
#: Seconds of finished checks over which the service's throughput is measured (for Retry-After).
RATE_WINDOW = 60.0


class _Waiters:
    """Events of the requests waiting for attempts, set by the listener."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: dict[str, set[threading.Event]] = collections.defaultdict(set)
        self.finished: collections.deque[float] = collections.deque()

    @contextlib.contextmanager
    def waiting(self, attempt_id: str) -> Iterator[threading.Event]:
        event = threading.Event()
        with self._lock:
            self._events[attempt_id].add(event)
        try:
            yield event
        finally:
            with self._lock:
                events = self._events.get(attempt_id)
                if events is not None:
                    events.discard(event)
                    if not events:
                        del self._events[attempt_id]

    def done(self, attempt_id: str) -> None:
        stamp = time.monotonic()
        with self._lock:
            self.finished.append(stamp)
            while self.finished and self.finished[0] < stamp - RATE_WINDOW:
                self.finished.popleft()
            events = list(self._events.get(attempt_id, ()))
        for event in events:
            event.set()

    def rate(self) -> float:
        """Checks finished per second, service-wide, over the last :data:`RATE_WINDOW` seconds."""
        stamp = time.monotonic()
        with self._lock:
            while self.finished and self.finished[0] < stamp - RATE_WINDOW:
                self.finished.popleft()
            count = len(self.finished)
        return count / RATE_WINDOW


class ProcrastinateDispatcher:
    """The :class:`~.base.Dispatcher` of a web process whose checks run on ``menace worker``\\ s."""

    def __init__(self, config: ServiceConfig) -> None:
        """Describe it; nothing is opened before :meth:`start`."""
        self.db_url = config.database_url
        self.broker_url = config.broker_url or config.database_url
        self.max_queue = config.max_queue
        self.check_seconds = config.check_seconds
        self._waiters = _Waiters()
        self._app: procrastinate.App | None = None
        self._db: Database | None = None
        self._own_db = False
        self._lock = threading.Lock()
        self._depth = 0
        self._depth_read = -math.inf
        self._stopping = threading.Event()
        self._listening = threading.Event()
        self._listener: threading.Thread | None = None

    # -- the Dispatcher protocol ---------------------------------------------------------

    def start(self, recorder: Recorder, backlog: list[CheckJob]) -> None:
        """Open the queue (making its tables the first time) and listen for finished checks.

        The backlog needs nothing from here: attempts that lost their job get one from the
        workers' sweep. Recording is the workers' business; the recorder's database (the
        app's) is used to count the line and to see attempts done.
        """
        ensure_schema(self.broker_url)
        # The app's own engine when there is one (one pool of connections per web process).
        self._db = recorder.db if isinstance(recorder, DatabaseRecorder) else Database(self.db_url)
        self._own_db = not isinstance(recorder, DatabaseRecorder)
        self._app = make_app(self.broker_url, pool_size=8)
        self._app.open()
        self._listener = threading.Thread(target=self._listen, name="checks-done-listener", daemon=True)
        self._listener.start()
        self._listening.wait(5)

    @contextlib.contextmanager
    def accepting(self) -> Iterator[Enqueue]:
        """Reserve a place in the service's queue (or :class:`QueueFull`); hand out ``enqueue``."""
        with self._lock:
            if self._stopping.is_set():
                raise QueueFull(5, SERVICE_IS_STOPPING)
        depth = self.depth()
        if depth >= self.max_queue:
            raise QueueFull(self._retry_after(depth))
        used = False

        def enqueue(job: CheckJob) -> None:
            nonlocal used
            if used:
                raise RuntimeError("one reservation, one job")
            used = True
            assert self._app is not None
            with self._lock:
                self._depth += 1
            defer_check(self._app, job.attempt_id, job.ahead, job.request_id)

        yield enqueue

    def wait(self, attempt_id: str, timeout: float) -> None:
        """Return once the attempt is recorded (a worker's notice, or a re-read), or after ``timeout``."""
        if timeout <= 0:
            return
        deadline = time.monotonic() + timeout
        with self._waiters.waiting(attempt_id) as event:
            while not self._is_done(attempt_id):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                if event.wait(min(remaining, POLL_SECONDS if self._listening.is_set() else 0.25)):
                    return

    def depth(self) -> int:
        """Checks accepted by the whole service and not yet done (see the module's docstring)."""
        stamp = time.monotonic()
        if stamp - self._depth_read > DEPTH_TTL:
            assert self._db is not None
            with self._db.reading() as session:
                counted = int(
                    session.scalar(
                        select(func.count())
                        .select_from(Attempt)
                        .where(Attempt.status.in_([AttemptStatus.QUEUED, AttemptStatus.RUNNING]))
                    )
                    or 0
                )
            with self._lock:
                self._depth, self._depth_read = counted, stamp
        return self._depth

    def health(self) -> dict[str, Any]:
        """The queue's facts: live workers, waiting, running, stalled and failed jobs, the oldest wait."""
        facts: dict[str, Any] = {"dispatcher": "procrastinate", "listening": self._listening.is_set()}
        try:
            with psycopg.connect(conninfo(self.broker_url), autocommit=True, connect_timeout=5) as connection:
                found: QueueFacts = queue_facts(connection)
            facts.update(found.to_dict())
            facts["queue"] = True
        except psycopg.Error as error:
            facts.update(queue=False, workers=0, queued=self._depth, error=str(error).splitlines()[0][:200])
        facts["oldest_wait_seconds"] = self._oldest_wait()
        facts["checks_per_second"] = round(self._waiters.rate(), 2)
        facts["ok"] = bool(facts["queue"]) and facts.get("workers", 0) > 0 and not self._stopping.is_set()
        return facts

    def defer_job(
        self, task: str, *, queueing_lock: str | None = None, delay_seconds: int = 0, **arguments: Any
    ) -> bool:
        """Queue a background job (e.g. ``"lti:passback"``) for the workers; False if one waits already.

        ``task`` is a task of a blueprint in
        :data:`~.procrastinate_queue.JOB_BLUEPRINTS`, which sets its queue, retries and
        backoff; ``arguments`` must be JSON. With ``queueing_lock``, at most one job with
        that lock waits at a time (a second is refused: False).
        """
        assert self._app is not None
        options: dict[str, Any] = {"queueing_lock": queueing_lock}
        if delay_seconds:
            options["schedule_in"] = {"seconds": delay_seconds}
        try:
            self._app.configure_task(task, **options).defer(**arguments)
        except procrastinate.exceptions.AlreadyEnqueued:
            return False
        return True

    def stop(self) -> None:
        """Stop listening and close the queue's connections (queued checks stay queued)."""
        self._stopping.set()
        if self._listener is not None:
            self._listener.join(timeout=5)
        if self._app is not None:
            with contextlib.suppress(Exception):
                self._app.close()
        if self._db is not None and self._own_db:
            self._db.dispose()

    # -- inside ---------------------------------------------------------------------------

    def _is_done(self, attempt_id: str) -> bool:
        assert self._db is not None
        with self._db.reading() as session:
            status = session.scalar(select(Attempt.status).where(Attempt.id == attempt_id))
        return status is None or status is AttemptStatus.DONE

    def _oldest_wait(self) -> float:
        assert self._db is not None
        with self._db.reading() as session:
            oldest = session.scalar(
                select(func.min(Attempt.created_at)).where(
                    Attempt.status.in_([AttemptStatus.QUEUED, AttemptStatus.RUNNING])
                )
            )
        if oldest is None:
            return 0.0
        if oldest.tzinfo is None:
            from datetime import UTC

            oldest = oldest.replace(tzinfo=UTC)
        return round(max(0.0, (now() - oldest).total_seconds()), 1)

    def _retry_after(self, depth: int) -> int:
        """Seconds until the line has moved by a queue's worth, at the measured throughput."""
        rate = self._waiters.rate()
        if rate <= 0:
            return 10
        return max(1, min(300, math.ceil((depth - self.max_queue + 1) / rate + 1)))

    def _listen(self) -> None:
        """Hold a LISTEN connection on the database; reconnect after a second when it drops."""
        while not self._stopping.is_set():
            try:
                with psycopg.connect(conninfo(self.db_url), autocommit=True, connect_timeout=5) as connection:
                    connection.execute(f"LISTEN {DONE_CHANNEL}")
                    self._listening.set()
                    while not self._stopping.is_set():
                        for notice in connection.notifies(timeout=1.0):
                            self._waiters.done(notice.payload)
            except psycopg.Error as error:
                if self._listening.is_set():
                    log.warning("lost the notices of finished checks (%s); reconnecting", error)
                self._listening.clear()
                self._stopping.wait(1.0)
        self._listening.clear()
