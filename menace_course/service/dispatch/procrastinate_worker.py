"""``menace worker``: take checks from the procrastinate queue and run them in warm graders.

One worker process per machine (or several), each with ``concurrency`` grader processes::

    menace worker (asyncio: procrastinate's fetch loop, heartbeats, the sweep)
      ├── checks queue: up to N jobs at once, each in a thread that borrows one grader
      │     └── N grader processes (the pool's, :class:`~.grading.JobGraders`),
      │           each with every challenge's tests imported, each check in its own sandbox
      └── background queue: the sweep, passbacks and other jobs (a few slots of their own)

Grading is CPU-bound Python, so N means N processes, not N threads: a thread only waits
on its grader's pipe. A lost grader costs what the pool's one policy says, as in the
embedded pool (a died one is replaced and the check tried once more; past that, or out of
time, the student gets a grader error, never a verdict on their code).

If the worker process itself is killed (``kill -9``), its graders notice their parent is
gone and end, its heartbeat stops, and the sweep of any other worker (or of this one when
it starts again) puts its jobs back in the queue (see :mod:`.procrastinate_queue`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from procrastinate.worker import Worker
from sqlalchemy import text

from menace_course.models import SandboxKind, SubmissionReport
from menace_course.service.config import ServiceConfig, default_of
from menace_course.service.db.engine import Database
from menace_course.service.db.tables import Attempt, AttemptStatus
from menace_course.service.dispatch.base import CheckJob
from menace_course.service.dispatch.grading import JobGraders, minimal_failure_report
from menace_course.service.dispatch.procrastinate_queue import (
    BACKGROUND_QUEUE,
    CHECK_QUEUE,
    DONE_CHANNEL,
    HEARTBEAT_SECONDS,
    MAX_RUNS,
    STALLED_AFTER_SECONDS,
    conninfo,
    make_app,
    queue_facts,
    unfinished_ids,
)
from menace_course.service.logs import bound, plain_id
from menace_course.service.metrics import CountingRecorder
from menace_course.service.metrics_server import MetricsServer
from menace_course.service.state import DatabaseRecorder

log = logging.getLogger("menace.service.worker")
#: Slots of the background queue (the sweep, passbacks): they wait on the network, not the CPU.
BACKGROUND_CONCURRENCY = 4


class WorkerStopped(Exception):
    """The worker ended without being asked to (its service manager should start it again)."""


@dataclass(frozen=True)
class WorkerConfig:
    """How one ``menace worker`` runs."""

    course: Path  #: the course folder, with its hidden tests (the same as the web process's)
    db_url: str  #: the service's database (PostgreSQL)
    broker_url: str = ""  #: where the queue's tables are; empty means ``db_url``
    concurrency: int = 1  #: grader processes, so checks at once
    sandbox: SandboxKind = "bwrap"
    check_seconds: float = default_of("check_seconds")  #: wall clock for one check in a grader
    name: str = ""  #: shown in logs; empty means host:pid
    metrics_port: int = 0  #: serve this worker's /metrics there (0: not at all)
    metrics_host: str = "127.0.0.1"
    metrics_token: str = ""  #: the bearer token /metrics asks for (empty: none)

    @classmethod
    def of(cls, config: ServiceConfig) -> WorkerConfig:
        """The worker's part of the one configuration."""
        return cls(
            config.course,
            config.database_url,
            config.broker_url,
            config.concurrency,
            config.sandbox,
            config.check_seconds,
            config.worker_name,
            config.metrics_port,
            config.metrics_host,
            config.metrics_token,
        )

    @property
    def queue_url(self) -> str:
        """The broker's URL in force."""
        return self.broker_url or self.db_url

    @property
    def label(self) -> str:
        """This worker's name in logs."""
        return self.name or f"{socket.gethostname()}:{os.getpid()}"


class NotifyingRecorder(DatabaseRecorder):
    """The service's recorder, which also wakes the web processes waiting on the attempt."""

    def finished(self, attempt_id: str, report: SubmissionReport) -> bool:
        """Store the report once (the same as the web's recorder), then NOTIFY its id."""
        recorded = super().finished(attempt_id, report)
        try:
            with self.db.writing() as session:
                session.execute(
                    text("SELECT pg_notify(:channel, :id)"), {"channel": DONE_CHANNEL, "id": attempt_id}
                )
        except Exception as error:  # a waiter polls too: a lost notice costs it a second, no more
            log.warning("could not notify that attempt %s is done: %s", attempt_id, error)
        return recorded


class CheckRuntime:
    """What the ``check`` and ``sweep`` tasks use in this worker: the database and the graders."""

    def __init__(self, config: WorkerConfig) -> None:
        """Open the database (lazily) and describe the graders (:func:`run_worker` starts them)."""
        self.config = config
        self.db = Database(config.db_url)
        self.recorder = CountingRecorder(NotifyingRecorder(self.db))
        self.graders = JobGraders(
            str(config.course), config.concurrency, config.sandbox, config.check_seconds
        )
        self.checked = 0
        self._busy = 0
        self._busy_lock = threading.Lock()

    def check(self, attempt_id: str, request_id: str = "") -> str:
        """Check a stored attempt and record its report once (see :mod:`.procrastinate_queue`).

        ``request_id`` is the id of the web request that made it: every line logged meanwhile
        (here and by the graders' pool) carries it.
        """
        with bound(plain_id(request_id) or ""), self._running():
            return self._check(attempt_id)

    @contextlib.contextmanager
    def _running(self) -> Iterator[None]:
        with self._busy_lock:
            self._busy += 1
        try:
            yield
        finally:
            with self._busy_lock:
                self._busy -= 1

    def health(self) -> dict[str, Any]:
        """For this worker's gauges: its graders alive, the checks it runs, the checks waiting."""
        facts: dict[str, Any] = {"workers": self.graders.pool.alive(), "running": self._busy, "queued": None}
        try:
            with psycopg.connect(conninfo(self.config.queue_url), autocommit=True, connect_timeout=5) as db:
                facts["queued"] = queue_facts(db).queued
        except psycopg.Error as error:  # the scrape still tells what this worker knows itself
            log.warning("metrics: cannot read the queue's depth: %s", str(error).strip()[:200])
        return facts

    def _check(self, attempt_id: str) -> str:
        with self.db.reading() as session:
            attempt = session.get(Attempt, attempt_id)
            if attempt is None:
                log.error("attempt %s is not in the database: nothing to check", attempt_id)
                return "unknown attempt"
            if attempt.status is AttemptStatus.DONE:
                return "recorded already"
            job, runs = CheckJob.of(attempt), attempt.runs
        if runs >= MAX_RUNS:
            log.error(
                "attempt %s was started %d times without a result: recorded as a grader error",
                attempt_id,
                runs,
            )
            self.recorder.started(attempt_id)
            self.recorder.finished(attempt_id, minimal_failure_report(job, self.config.sandbox))
            return "gave up"
        if not self.recorder.started(attempt_id):
            return "recorded already"
        report = self.graders.report(job)
        recorded = self.recorder.finished(attempt_id, report)
        self.checked += 1
        outcome = "recorded" if recorded else "recorded already"
        log.info("attempt %s %s (run %d, %s)", attempt_id, outcome, runs + 1, report.status.value)
        return outcome

    def orphans(self, active: set[str], older_than: float) -> list[tuple[str, str]]:
        """Attempts waiting ``older_than`` seconds or more with no live job, and their request ids."""
        return unfinished_ids(self.db, active, older_than)

    def stop(self) -> None:
        """End the graders and close the database."""
        self.graders.stop()
        self.db.dispose()


async def run_worker(config: WorkerConfig, on_ready: Any = None) -> None:
    """Run until SIGTERM or SIGINT: fetch checks, run them, record them (see the module's docstring).

    ``on_ready()`` is called once the graders are warm and the worker takes jobs.

    Raises:
        GraderLost: the graders could not load the course (REFUSED), or start in time.
    """
    runtime = CheckRuntime(config)
    metrics = None
    try:
        if config.metrics_port:
            metrics = MetricsServer(runtime, config.metrics_host, config.metrics_port, config.metrics_token)
            metrics.start()
        await asyncio.to_thread(runtime.graders.pool.await_ready)
        connections = config.concurrency + BACKGROUND_CONCURRENCY + 3
        app = make_app(config.queue_url, pool_size=connections, worker_label=config.label)
        async with app.open_async():
            common: dict[str, Any] = {
                "additional_context": {"menace": runtime},
                "update_heartbeat_interval": HEARTBEAT_SECONDS,
                "stalled_worker_timeout": STALLED_AFTER_SECONDS,
                "install_signal_handlers": False,
                "fetch_job_polling_interval": 2.0,
                "abort_job_polling_interval": 10.0,
                "shutdown_graceful_timeout": config.check_seconds,
            }
            # procrastinate's Worker is not annotated: held as Any.
            checks: Any = Worker(
                app,
                queues=[CHECK_QUEUE],
                concurrency=config.concurrency,
                name=f"checks@{config.label}",
                delete_jobs="successful",  # the attempt keeps the result; failed jobs stay, to see
                **common,
            )
            background: Any = Worker(
                app,
                queues=[BACKGROUND_QUEUE],
                concurrency=BACKGROUND_CONCURRENCY,
                name=f"background@{config.label}",
                **common,
            )
            asked_to_stop = asyncio.Event()

            def stop() -> None:
                asked_to_stop.set()
                checks.stop()
                background.stop()

            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, stop)
            running = [asyncio.create_task(w.run(), name=w.worker_name) for w in (checks, background)]
            if on_ready is not None:
                on_ready()
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            checks.stop()
            background.stop()
            await asyncio.gather(*running, return_exceptions=True)
            for task in done:
                error = task.exception()
                if error is not None:
                    raise error
            if not asked_to_stop.is_set():
                raise WorkerStopped(
                    "the worker stopped by itself (see the log above: the database went away?)"
                )
    finally:
        if metrics is not None:
            metrics.stop()
        await asyncio.to_thread(runtime.stop)
