"""The distributed queue (procrastinate, on PostgreSQL): its tasks, its tables, its names.

Checks travel like this when ``menace serve --queue procrastinate`` runs::

    web process                    PostgreSQL                          menace worker (any number)
    ───────────                    ──────────                          ──────────────────────────
    store the attempt (commit) ──▶ attempts (queued)
    defer menace:check(id)     ──▶ procrastinate_jobs (todo)  ──fetch─▶ warm grader process, sandbox
                                   attempts (done, report)   ◀─record── once, by the attempt's id
    ?wait wakes up            ◀─── NOTIFY menace_checks_done  ◀─notify─

The attempts table is the truth; the queue only carries attempt ids. Three things make
"every accepted check completes" hold when processes die:

- a worker's jobs are ``doing`` under its id while it sends heartbeats (every
  :data:`HEARTBEAT_SECONDS`); when a worker stops beating for :data:`STALLED_AFTER_SECONDS`
  (``kill -9``, a lost machine), :func:`sweep` puts its jobs back to ``todo``, where the next
  free worker takes them in their old place in the line;
- :func:`sweep` also defers again any attempt that has waited :data:`ORPHAN_SECONDS` with no
  live job (the web process died between storing it and deferring it, or a job failed for
  good);
- recording is idempotent (:func:`~menace_course.service.db.attempts.record_result` writes
  once), and an attempt whose grader was started :data:`MAX_RUNS` times without a result is
  recorded as a grader error instead of being run again, so a submission that kills its
  worker cannot go round for ever.

:func:`sweep` is a procrastinate periodic task (every :data:`SWEEP_SECONDS`), so whichever
worker is alive runs it; after a total outage the first worker to start does.

Other parts of the service add their own background jobs (an LMS score passback, say) with a
procrastinate :class:`~procrastinate.Blueprint` named in :data:`JOB_BLUEPRINTS`: its tasks run
on the workers' background queue, with procrastinate's retries and backoff.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

import procrastinate
import psycopg
from procrastinate import exceptions as queue_errors
from procrastinate.job_context import JobContext
from procrastinate.schema import SchemaManager
from sqlalchemy import select

from menace_course.errors import UsageError
from menace_course.service.db.engine import Database, normalize_url
from menace_course.service.db.tables import Attempt, AttemptStatus, now
from menace_course.service.logs import bound

log = logging.getLogger("menace.service.queue")

#: The queue checks wait in; workers give it all their grader processes.
CHECK_QUEUE = "checks"
#: The queue of everything else (the sweep, passbacks...): a few slots of its own, so a slow
#: LMS never holds a grader, and a long line of checks never holds a passback.
BACKGROUND_QUEUE = "background"
#: Task names as stored in ``procrastinate_jobs.task_name``.
CHECK_TASK = "menace:check"
SWEEP_TASK = "menace:sweep"
#: The PostgreSQL channel a worker notifies with an attempt's id once its report is stored.
DONE_CHANNEL = "menace_checks_done"

HEARTBEAT_SECONDS = 2.0
#: A worker silent this long is taken for dead, and its jobs are run again elsewhere.
STALLED_AFTER_SECONDS = 10.0
SWEEP_SECONDS = 5
#: An attempt waiting this long with no live job gets one again.
ORPHAN_SECONDS = 30.0
#: Grader starts after which an attempt is recorded as a grader error instead of run again.
MAX_RUNS = 3

#: ``"module:attribute"`` of procrastinate blueprints whose tasks the workers also run, each
#: added under the namespace before the colon's module name's last part (``lti:passback``).
#: A module that is not installed is skipped.
JOB_BLUEPRINTS: tuple[str, ...] = ("menace_course.service.lti.jobs:blueprint",)

#: The PostgreSQL ``application_name`` of a worker's connections (then its name).
WORKER_APPLICATION = "menace-worker"
#: A note on the queue's tables saying which procrastinate made them.
SCHEMA_MARK = f"menace-course: procrastinate {procrastinate.__version__}"
#: Key of the advisory lock that one process holds while it creates the queue's tables.
_SCHEMA_LOCK = 0x6D656E616365  # "menace"

tasks = procrastinate.Blueprint()


class CheckRunner(Protocol):
    """What a worker process gives the ``check`` task (see :mod:`.procrastinate_worker`)."""

    def check(self, attempt_id: str, request_id: str = "") -> str:
        """Check the attempt and record its report (logging with ``request_id``); a word on what happened."""
        ...

    def orphans(self, active: set[str], older_than: float) -> list[tuple[str, str]]:
        """Unfinished attempts older than ``older_than`` seconds whose id is not in ``active``.

        Each as its id and the id of the request that made it (empty when it has none).
        """
        ...


def _runner(context: JobContext) -> CheckRunner:
    runner: CheckRunner = context.additional_context["menace"]
    return runner


@tasks.task(
    name="check",
    queue=CHECK_QUEUE,
    pass_context=True,
    # Our own failures (the database away for a moment): try again, a little later each time.
    retry=procrastinate.RetryStrategy(max_attempts=10, linear_wait=2),
)
def check(context: JobContext, attempt_id: str, request_id: str = "") -> str:
    """Check one stored attempt in this worker's warm graders and record its report once.

    ``request_id`` is the id of the web request that deferred it, for the worker's log lines
    (jobs deferred by the sweep, or by an older web process, have none).
    """
    return _runner(context).check(attempt_id, request_id)


@tasks.periodic(cron=f"* * * * * */{SWEEP_SECONDS}", periodic_id="sweep")
@tasks.task(name="sweep", queue=BACKGROUND_QUEUE, queueing_lock="menace-sweep", pass_context=True)
async def sweep(context: JobContext, timestamp: int) -> str:
    """Give back the jobs of dead workers, and a job to every attempt that lost its own."""
    manager = context.app.job_manager
    stalled = list(await manager.get_stalled_jobs(seconds_since_heartbeat=STALLED_AFTER_SECONDS))
    for job in stalled:
        log.warning("job %s (%s) was running on a worker that died: queued again", job.id, job.task_name)
        await manager.retry_job(job)
    active = await active_check_ids(context.app)
    lost = await asyncio.to_thread(_runner(context).orphans, active, ORPHAN_SECONDS)
    for attempt_id, made_by in lost:
        with bound(made_by):
            log.warning("attempt %s had no job: queued again", attempt_id)
        await defer_check_async(context.app, attempt_id, made_by)
    return f"{len(stalled)} stalled, {len(lost)} lost"


@tasks.periodic(cron="17 * * * *", periodic_id="tidy")
@tasks.task(name="tidy", queue=BACKGROUND_QUEUE, queueing_lock="menace-tidy", pass_context=True)
async def tidy(context: JobContext, timestamp: int) -> str:
    """Forget background jobs that succeeded over an hour ago (checks leave no job behind)."""
    await context.app.job_manager.delete_old_jobs(nb_hours=1, queue=BACKGROUND_QUEUE)
    return "tidied"


async def active_check_ids(app: procrastinate.App) -> set[str]:
    """Ids of the attempts that have a check job waiting or running."""
    found: set[str] = set()
    for status in ("todo", "doing"):
        for job in await app.job_manager.list_jobs_async(task=CHECK_TASK, status=status):
            found.add(str(job.task_kwargs.get("attempt_id")))
    return found


def _lock(attempt_id: str) -> str:
    return f"check:{attempt_id}"


def defer_check(app: procrastinate.App, attempt_id: str, ahead: int = 0, request_id: str = "") -> None:
    """Queue the check of a stored attempt (at most one waiting job per attempt).

    ``request_id`` travels in the job's arguments, so the worker's log lines for the check
    carry the id of the request that made it.

    ``ahead`` is how many checks of the same lane were waiting before it: workers take
    higher priorities first (then the oldest), and the priority is ``-ahead``, so a
    student's first waiting check goes before anyone's second or third, the fair share of
    the local pool's turns (:mod:`.fair`) as near as a priority gets.
    """
    try:
        app.configure_task(CHECK_TASK, queueing_lock=_lock(attempt_id), priority=-ahead).defer(
            attempt_id=attempt_id, request_id=request_id
        )
    except queue_errors.AlreadyEnqueued:
        pass  # its job is waiting already


async def defer_check_async(app: procrastinate.App, attempt_id: str, request_id: str = "") -> None:
    """:func:`defer_check` from a worker's event loop."""
    try:
        await app.configure_task(CHECK_TASK, queueing_lock=_lock(attempt_id)).defer_async(
            attempt_id=attempt_id, request_id=request_id
        )
    except queue_errors.AlreadyEnqueued:
        pass


def conninfo(url: str) -> str:
    """A libpq connection string for an SQLAlchemy PostgreSQL URL.

    Raises:
        UsageError: the URL is not a PostgreSQL one (the queue lives in PostgreSQL).
    """
    parsed = normalize_url(url)
    if parsed.get_backend_name() != "postgresql":
        raise UsageError(
            f"the procrastinate queue needs PostgreSQL, not {parsed.get_backend_name()}: "
            "give --db (or --broker) a postgresql://... URL"
        )
    text: str = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    return text


def _blueprints() -> list[tuple[str, procrastinate.Blueprint]]:
    found = []
    for spec in JOB_BLUEPRINTS:
        module_name, _, attribute = spec.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as missing:
            if missing.name and module_name.startswith(missing.name):
                continue  # that part is not installed
            raise
        found.append((module_name.rsplit(".", 2)[-2], getattr(module, attribute)))
    return found


def make_app(broker_url: str, *, pool_size: int = 4, worker_label: str = "") -> procrastinate.App:
    """A procrastinate app on ``broker_url`` with every task the service knows.

    The web process defers with a synchronous connection pool; a worker (``worker_label``
    given) runs on an asynchronous one whose connections carry its name, which is how
    :func:`queue_facts` sees it alive. Neither is opened here.
    """
    info = conninfo(broker_url)
    connector: Any
    if worker_label:
        named = {"application_name": f"{WORKER_APPLICATION} {worker_label}"[:63]}
        connector = procrastinate.PsycopgConnector(
            conninfo=info, kwargs=named, min_size=2, max_size=pool_size
        )
    else:
        connector = procrastinate.SyncPsycopgConnector(conninfo=info, min_size=1, max_size=pool_size)
    app = procrastinate.App(connector=connector)
    app.add_tasks_from(tasks, namespace="menace")
    for namespace, blueprint in _blueprints():
        app.add_tasks_from(blueprint, namespace=namespace)
    return app


def ensure_schema(broker_url: str) -> bool:
    """Create procrastinate's tables in the broker's database unless they are there; True if made.

    Several processes may start at once: one creates, under an advisory lock, the others
    wait for it. Tables made by another procrastinate version are refused with the way out.

    Raises:
        UsageError: the database cannot be reached, or holds another version's tables.
    """
    try:
        with psycopg.connect(conninfo(broker_url), autocommit=True) as connection:
            connection.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
            try:
                row = connection.execute(
                    "SELECT obj_description(to_regclass('procrastinate_jobs'), 'pg_class'), "
                    "to_regclass('procrastinate_jobs') IS NOT NULL"
                ).fetchone()
                mark, exists = (row[0], bool(row[1])) if row else (None, False)
                if exists:
                    if mark and mark != SCHEMA_MARK:
                        raise UsageError(
                            f"the queue's tables were made by {mark.split(': ', 1)[-1]}, and this is "
                            f"procrastinate {procrastinate.__version__}: apply its migrations "
                            "(docs/deploy.md, Upgrading), then start again"
                        )
                    return False
                with connection.transaction():
                    connection.execute(SchemaManager.get_schema())
                    connection.execute(
                        psycopg.sql.SQL("COMMENT ON TABLE procrastinate_jobs IS {}").format(
                            psycopg.sql.Literal(SCHEMA_MARK)
                        )
                    )
                log.info("made the queue's tables (%s)", SCHEMA_MARK)
                return True
            finally:
                connection.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))
    except psycopg.OperationalError as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UsageError(f"cannot reach the queue's database: {reason}") from error


@dataclass(frozen=True)
class QueueFacts:
    """What an operator wants to know about the queue (``/healthz``, ``menace worker status``)."""

    workers: list[str]  #: names of the ``menace worker`` processes connected now
    queued: int  #: check jobs waiting
    running: int  #: check jobs a live worker holds
    stalled: int  #: jobs held by workers that stopped beating (the sweep gives them back)
    failed: int  #: jobs that failed for good (their attempts get a job again from the sweep)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (``workers`` as a count, ``worker_names`` as the names)."""
        facts = dict(self.__dict__)
        facts["workers"], facts["worker_names"] = len(self.workers), self.workers
        return facts


def queue_facts(connection: psycopg.Connection[Any]) -> QueueFacts:
    """Read :class:`QueueFacts` on a connection to the broker's database.

    A worker is alive while its connections are: PostgreSQL drops those of a killed
    process at once, so this sees a ``kill -9`` sooner than the heartbeats do.
    """
    names = connection.execute(
        "SELECT DISTINCT substr(application_name, %(skip)s) FROM pg_stat_activity "
        "WHERE datname = current_database() AND application_name LIKE %(like)s ORDER BY 1",
        {"skip": len(WORKER_APPLICATION) + 2, "like": WORKER_APPLICATION + " %"},
    ).fetchall()
    row = connection.execute(
        """
        WITH live AS (
            SELECT id FROM procrastinate_workers
             WHERE last_heartbeat >= now() - make_interval(secs => %(stalled)s))
        SELECT
          count(*) FILTER (WHERE j.status = 'todo' AND j.task_name = %(task)s),
          count(*) FILTER (WHERE j.status = 'doing' AND j.task_name = %(task)s
                             AND j.worker_id IN (SELECT id FROM live)),
          count(*) FILTER (WHERE j.status = 'doing'
                             AND (j.worker_id IS NULL OR j.worker_id NOT IN (SELECT id FROM live))),
          count(*) FILTER (WHERE j.status = 'failed')
        FROM procrastinate_jobs j
        WHERE j.status IN ('todo', 'doing', 'failed')
        """,
        {"stalled": STALLED_AFTER_SECONDS, "task": CHECK_TASK},
    ).fetchone()
    assert row is not None
    return QueueFacts([str(name) for (name,) in names], *(int(value) for value in row))


def unfinished_ids(db: Database, active: set[str], older_than: float) -> list[tuple[str, str]]:
    """Attempts accepted ``older_than`` seconds ago or more, not done, and not in ``active``.

    Each as its id and the id of the request that made it (empty when it has none).
    """
    cutoff = now() - timedelta(seconds=older_than)
    with db.reading() as session:
        rows = session.execute(
            select(Attempt.id, Attempt.request_id)
            .where(
                Attempt.status.in_([AttemptStatus.QUEUED, AttemptStatus.RUNNING]),
                Attempt.created_at <= cutoff,
            )
            .order_by(Attempt.created_at)
            .limit(1000)
        )
        return [(attempt_id, made_by or "") for attempt_id, made_by in rows if attempt_id not in active]
