"""``menace worker``: run checks for a ``menace serve --queue procrastinate`` service, on any machine.

This module checks the options and hands over to
:func:`~menace_course.service.dispatch.procrastinate_worker.run_worker`;
``menace worker status`` reads the queue's state for an operator (or a monitoring probe).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import click

from menace_course.commands.options import no_sandbox_option
from menace_course.commands.serve import _sandbox, open_database, service_course
from menace_course.commands.settings import given, settings_options
from menace_course.errors import CourseError, MenaceError, UsageError
from menace_course.service.logs import setup_logging

db_option = click.option(
    "--db",
    "db_url",
    metavar="URL",
    default=None,
    help="The service's PostgreSQL database, the same URL as `menace serve --db` "
    "(e.g. postgresql://menace@db.example.edu/menace).",
)
broker_option = click.option(
    "--broker",
    "broker_url",
    metavar="URL",
    default=None,
    help="The PostgreSQL database of the queue, if not the service's own (as `menace serve --broker`).",
)


class WorkerFailed(MenaceError):
    """The worker ended without being asked to; a service manager should start it again."""

    exit_code = 1


@click.group(invoke_without_command=True)
@settings_options("worker")
@no_sandbox_option("Run")
@click.pass_context
def worker(ctx: click.Context, /, config_file: Path | None, accept_no_sandbox: bool, **values: Any) -> int:
    """Take checks from the queue of a `menace serve --queue procrastinate` service and run
    them, each in its own sandbox, in warm grader processes. Run as many as you like, on
    this machine or others; each needs the course folder (with its hidden tests).

    \b
    Examples:
      menace worker --db postgresql:///menace                  one grader per CPU
      menace worker --db postgresql://menace@db/menace --concurrency 4 --course /srv/course
      menace worker status --db postgresql:///menace          workers alive, checks waiting
      menace worker --db postgresql:///menace --metrics-port 9464   Prometheus metrics on 127.0.0.1

    A worker that is killed loses nothing: within about 15 s another worker (or this one,
    started again) takes over the checks it held. Stop with Ctrl-C or SIGTERM: it finishes
    the checks it holds first.
    """
    if ctx.invoked_subcommand is not None:
        return 0
    values = given(values, "worker")
    db_url = values.get("db_url")
    if not db_url:
        raise UsageError("menace worker needs --db URL (or MENACE_DB): the service's PostgreSQL database")
    from menace_course.pool import GraderLost
    from menace_course.service.addresses import is_loopback
    from menace_course.service.config import ServiceConfig
    from menace_course.service.dispatch.grading import where
    from menace_course.service.dispatch.procrastinate_queue import conninfo, ensure_schema
    from menace_course.service.dispatch.procrastinate_worker import WorkerConfig, WorkerStopped, run_worker

    the_course = service_course(values.pop("course", None))
    kind = _sandbox(values.pop("sandbox", "bwrap"), accept_no_sandbox)
    conninfo(db_url)
    url = open_database(the_course, db_url)
    values.pop("db_url")
    settings = ServiceConfig(course=the_course.root, db_url=url, sandbox=kind, **values)
    ensure_schema(settings.broker_url or url)
    config = WorkerConfig.of(settings)
    setup_logging(settings.log_format, text_format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("procrastinate").setLevel(logging.WARNING)  # not a line per job (170 a second)
    if kind == "process":
        click.echo("WARNING: checking WITHOUT a sandbox (--i-accept-no-sandbox).", err=True)
    if config.metrics_port and not config.metrics_token and not is_loopback(config.metrics_host):
        click.echo(
            f"WARNING: the metrics on {config.metrics_host} are open to anyone who can connect: "
            "set MENACE_METRICS_TOKEN (or keep --metrics-host on 127.0.0.1).",
            err=True,
        )

    def ready() -> None:
        from menace_course.service.db.engine import describe

        click.echo(
            f"menace worker {config.label}: {config.concurrency} grader(s) ({kind} sandbox), "
            f"course {the_course.root}, queue in {describe(config.queue_url)}; taking checks",
            err=False,
        )
        if config.metrics_port:
            shown = f"[{config.metrics_host}]" if ":" in config.metrics_host else config.metrics_host
            protected = "token required" if config.metrics_token else "no token"
            click.echo(
                f"menace worker {config.label}: metrics at "
                f"http://{shown}:{config.metrics_port}/metrics ({protected})"
            )
        sys.stdout.flush()

    try:
        asyncio.run(run_worker(config, ready))
    except GraderLost as error:
        raise CourseError(f"the graders could not load the course {the_course.root}: {error}") from error
    except WorkerStopped as error:
        raise WorkerFailed(str(error)) from error
    except OSError as error:
        raise WorkerFailed(f"the worker failed: {where(error)}") from error
    click.echo(f"menace worker {config.label}: stopped")
    return 0


@worker.command("status")
@db_option
@broker_option
def status(db_url: str | None, broker_url: str | None) -> int:
    """Say how the queue is: workers alive, checks waiting and running, stalled and failed jobs,
    the oldest wait. Exits 1 when no worker is alive (for a monitoring probe).
    """
    import psycopg

    from menace_course.service.db.engine import describe
    from menace_course.service.dispatch.procrastinate_queue import conninfo, queue_facts

    url = broker_url or db_url
    if not url:
        raise UsageError("menace worker status needs --db URL (or --broker URL)")
    try:
        with psycopg.connect(conninfo(url), autocommit=True, connect_timeout=10) as connection:
            facts = queue_facts(connection)
    except psycopg.errors.UndefinedTable as error:
        raise UsageError(
            f"{describe(url)} has no queue yet: start menace serve --queue procrastinate"
        ) from error
    except psycopg.Error as error:
        raise UsageError(f"cannot read the queue in {describe(url)}: {str(error).strip()[:200]}") from error
    click.echo(
        f"workers alive   {len(facts.workers)}  {', '.join(facts.workers)}\n"
        f"checks waiting  {facts.queued}\n"
        f"checks running  {facts.running}\n"
        f"stalled jobs    {facts.stalled}  (held by workers that stopped; given back within seconds)\n"
        f"failed jobs     {facts.failed}"
    )
    return 0 if facts.workers else 1
