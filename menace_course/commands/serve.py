"""``menace serve``: the course's check service; ``menace serve export``: its grades for the LMS.

This module checks the options, opens (and migrates) the database, and hands over to
gunicorn (:mod:`menace_course.service.server`); the service itself is
:mod:`menace_course.service`.
"""

from __future__ import annotations

import errno
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from menace_course.commands.options import course_option, no_sandbox_option
from menace_course.commands.settings import given, settings_options, source_of
from menace_course.course import Course, find_course
from menace_course.errors import CourseError, SandboxUnavailable, UsageError
from menace_course.models import SandboxKind
from menace_course.sandbox.launch import choose_kind
from menace_course.service.config import default_of

if TYPE_CHECKING:
    from menace_course.service.config import ServiceConfig

db_option = click.option(
    "--db",
    "db_url",
    metavar="URL",
    default=None,
    help="An SQLAlchemy database URL: sqlite:///PATH or postgresql://USER@HOST/NAME "
    "[default: SQLite in COURSE/.menace/service.sqlite3].",
)

NO_SANDBOX_WARNING = (
    "WARNING: serving WITHOUT a sandbox (--i-accept-no-sandbox). Students' code runs as this "
    "user, with its files, its network and its processes within reach."
)


def service_course(course: Path | None) -> Course:
    """The instructor's course (with hidden tests): the service is useless on a student's kit."""
    found = find_course(course)
    if not found.has_hidden_tests:
        raise CourseError(
            f"{found.root} has no hidden_tests/: it is a student's kit, not the instructor's course; "
            "run menace serve in the course folder, or pass --course DIR"
        )
    from menace_course import catalog

    catalog.load_all(found)  # a malformed challenge.toml is refused now, not at the first check
    return found


def open_database(course: Course, db_url: str | None) -> str:
    """The database URL in force, migrated to the newest schema.

    Raises:
        UsageError: the URL is malformed, or the database cannot be reached or migrated.
    """
    from sqlalchemy.exc import SQLAlchemyError

    from menace_course.service.config import default_db_url
    from menace_course.service.db.engine import Database, describe

    url = db_url or default_db_url(course.root)
    database = Database(url)
    try:
        database.upgrade()
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise UsageError(f"cannot open the database {describe(url)}: {reason}") from error
    finally:
        database.dispose()
    return url


def _sandbox(requested: str, accept_no_sandbox: bool) -> SandboxKind:
    if requested == "process" and not accept_no_sandbox:
        raise UsageError(
            "--sandbox process runs students' code without isolation; "
            "add --i-accept-no-sandbox if you accept that"
        )
    if requested == "process":
        return "process"
    try:
        return choose_kind("bwrap")
    except SandboxUnavailable as error:
        if not accept_no_sandbox:
            raise SandboxUnavailable(
                f"{error}. menace serve needs it to run students' code safely; to serve without a sandbox "
                "anyway (never on a network others reach), add --i-accept-no-sandbox"
            ) from error
        return "process"


def _check_port(host: str, port: int) -> None:
    """Fail early, with a plain message, when the address cannot be listened on."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    probe = socket.socket(family, socket.SOCK_STREAM)
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind((host, port))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise UsageError(
                f"{host}:{port} is in use (another menace serve?); choose another with --port"
            ) from error
        raise UsageError(f"cannot listen on {host}:{port}: {error.strerror}") from error
    finally:
        probe.close()


def _check_queue(db_url: str, broker_url: str | None) -> None:
    """``--queue procrastinate`` needs PostgreSQL."""
    from menace_course.service.dispatch.procrastinate_queue import conninfo, ensure_schema

    conninfo(db_url)  # the attempts must be where every worker can reach them
    ensure_schema(broker_url or db_url)


def _graders(config: ServiceConfig) -> str:
    if config.queue == "procrastinate":
        return "none here: checks go to the procrastinate queue, run by `menace worker` processes"
    return f"{config.workers} ({config.sandbox} sandbox)"


def _config(ctx: click.Context, values: dict[str, Any], accept_no_sandbox: bool) -> ServiceConfig:
    """The service's configuration from the settings given, each checked; the database migrated.

    Raises:
        UsageError: a setting is malformed or does not fit with another.
    """
    from limits import parse_many

    from menace_course.service.config import ServiceConfig

    rate_limit = values.get("rate_limit", default_of("rate_limit"))
    try:
        parse_many(rate_limit)
    except ValueError as error:
        raise UsageError(
            f"{source_of(ctx, 'rate_limit')} {rate_limit!r} is not a limit like '30 per minute'"
        ) from error
    if "trusted_proxies" in values:
        from menace_course.service.proxy import parse_proxies

        if not values.get("behind_proxy"):
            raise UsageError(
                f"{source_of(ctx, 'trusted_proxies')} needs --behind-proxy (or MENACE_BEHIND_PROXY=1): "
                "without it no forwarded header is read"
            )
        try:
            networks = parse_proxies(values["trusted_proxies"])
            values["trusted_proxies"] = tuple(str(network) for network in networks)
        except ValueError as error:
            raise UsageError(f"{source_of(ctx, 'trusted_proxies')} {error}") from error
    the_course = service_course(values.pop("course", None))
    values["sandbox"] = _sandbox(values.get("sandbox", "bwrap"), accept_no_sandbox)
    _check_port(values.get("host", default_of("host")), values.get("port", default_of("port")))
    url = open_database(the_course, values.pop("db_url", None))
    if values.get("queue") == "procrastinate":
        if "workers" in values:
            raise UsageError(
                f"{source_of(ctx, 'workers')} counts this machine's graders; with --queue procrastinate the "
                "checks run in `menace worker --concurrency N` processes instead"
            )
        _check_queue(url, values.get("broker_url"))
    elif values.get("web_processes", 1) > 1:
        raise UsageError(
            f"{source_of(ctx, 'web_processes')} needs --queue procrastinate: the embedded queue lives in "
            "one process"
        )
    values["public_url"] = values.get("public_url", "").rstrip("/")
    return ServiceConfig(course=the_course.root, db_url=url, **values)


@click.group(invoke_without_command=True)
@settings_options("serve")
@no_sandbox_option("Serve")
@click.pass_context
def serve(ctx: click.Context, /, config_file: Path | None, accept_no_sandbox: bool, **values: Any) -> int:
    """Run the course's check service: a web page and a JSON API that check students' files
    against the hidden tests, which stay on this machine.

    \b
    Examples:
      menace serve                         http://127.0.0.1:8000, SQLite in the course folder
      menace serve --open                  anyone may practise, without signing in
      menace serve --db postgresql:///menace --workers 4
      menace serve --db postgresql:///menace --queue procrastinate   checks run on `menace worker`s
      menace users add alice bob           tokens for students (NAME TOKEN lines)
      menace serve export --challenge after_game --out grades/

    Students check from the page /c/SLUG, or with `menace check FILE --server URL`.
    Stop with Ctrl-C: checks accepted and not finished run again at the next start.
    """
    if ctx.invoked_subcommand is not None:
        return 0  # the subcommand (export) has options of its own; serve's settings are not its
    config = _config(ctx, given(values, "serve"), accept_no_sandbox)
    from menace_course.service.db.engine import describe

    url = config.db_url
    if config.sandbox == "process":
        click.echo(NO_SANDBOX_WARNING, err=True)
    if config.host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            f"note: listening on {config.host}: put a reverse proxy with TLS in front (README, Security).",
            err=True,
        )

    def announce(address: str) -> None:
        mode = "open practice (no sign-in needed)" if config.open else "students sign in with tokens"
        click.echo(
            f"menace serve: {address}\n"
            f"  course    {config.course}\n"
            f"  database  {describe(url)}\n"
            f"  graders   {_graders(config)}, queue of {config.max_queue}; {mode}\n"
            f"  students  open {address}/ or run: menace check FILE --server {address}",
        )

    from menace_course.service.server import serve as run

    run(config, announce)
    return 0


@serve.command("export")
@click.option("--challenge", "slug", required=True, metavar="SLUG", help="The challenge to export.")
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path),
    help="Where grades.csv, results.jsonl and feedback/ go.",
)
@click.option(
    "--pick",
    type=click.Choice(["best", "latest"]),
    default="best",
    show_default=True,
    help="Which of a student's attempts counts.",
)
@db_option
@course_option
def export(slug: str, out: Path, pick: str, db_url: str | None, course: Path | None) -> int:
    """Write the service's grades for one challenge as `menace grade` does: grades.csv,
    results.jsonl, feedback/ and report.html, so every `menace export` works on OUT.

    \b
    Example:
      menace serve export --challenge after_game --out grades/
      menace export canvas --results grades/ --gradebook canvas.csv --out canvas_import.csv
    """
    from menace_course import catalog
    from menace_course.exports import counted
    from menace_course.service.export import export_challenge

    the_course = service_course(course)
    challenge = catalog.load_challenge(the_course, slug)
    url = open_database(the_course, db_url)
    done = export_challenge(the_course, challenge, url, out, pick)
    click.echo(
        f"wrote {counted(done.with_attempts, 'student')} with a checked attempt ({pick} counts) -> {out}/: "
        "grades.csv, results.jsonl, feedback/, report.html"
    )
    if done.without_attempts:
        shown = ", ".join(done.without_attempts[:10])
        more = f" and {len(done.without_attempts) - 10} more" if len(done.without_attempts) > 10 else ""
        click.echo(
            f"left out {counted(len(done.without_attempts), 'student')} of {done.students} with no checked "
            f"attempt ({shown}{more}): not in grades.csv, so an LMS import leaves their grades as they are"
        )
    for problem in done.feedback_errors:
        click.echo(f"warning: {problem}", err=True)
    return 0
