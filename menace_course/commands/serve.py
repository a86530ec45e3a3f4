"""``menace serve``: the course's check service; ``menace serve export``: its grades for the LMS.

This module checks the options, opens (and migrates) the database, and hands over to
gunicorn (:mod:`menace_course.service.server`); the service itself is
:mod:`menace_course.service`.
"""

from __future__ import annotations

import errno
import socket
from pathlib import Path
from typing import TYPE_CHECKING

import click

from menace_course.commands.options import SANDBOX_HELP, course_option, no_sandbox_option, sandbox_option
from menace_course.course import Course, find_course
from menace_course.errors import CourseError, SandboxUnavailable, UsageError
from menace_course.models import SandboxKind
from menace_course.sandbox.launch import choose_kind

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


def _check_queue(db_url: str, broker_url: str | None, workers: int | None) -> None:
    """``--queue procrastinate`` needs PostgreSQL, and makes ``--workers`` meaningless here."""
    from menace_course.service.dispatch.procrastinate_queue import conninfo, ensure_schema

    if workers is not None:
        raise UsageError(
            "--workers counts this machine's graders; with --queue procrastinate the checks run in "
            "`menace worker --concurrency N` processes instead"
        )
    conninfo(db_url)  # the attempts must be where every worker can reach them
    ensure_schema(broker_url or db_url)


def _graders(config: ServiceConfig) -> str:
    if config.queue == "procrastinate":
        return "none here: checks go to the procrastinate queue, run by `menace worker` processes"
    return f"{config.workers} ({config.sandbox} sandbox)"


@click.group(invoke_without_command=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="The port (0: any free one).",
)
@db_option
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Grader processes, each checking one submission at a time [default: the CPUs].",
)
@click.option(
    "--queue",
    type=click.Choice(["local", "procrastinate"]),
    default="local",
    show_default=True,
    help="Who runs the checks: this machine's graders (local), or `menace worker` processes on any "
    "machine, through a queue in PostgreSQL (procrastinate; needs --db postgresql://...). "
    "See docs/scaling.md.",
)
@click.option(
    "--broker",
    "broker_url",
    metavar="URL",
    default=None,
    help="With --queue procrastinate: the PostgreSQL database of the queue [default: --db].",
)
@click.option(
    "--web-processes",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="With --queue procrastinate: web processes answering requests (one uses about one core "
    "at 50 checks/s; see docs/scaling.md). Rate limits are counted per process.",
)
@course_option
@click.option(
    "--open",
    "open_practice",
    is_flag=True,
    help="Let anyone check without signing in: such attempts are kept without a name and count for no grade.",
)
@click.option(
    "--threads",
    type=click.IntRange(min=4),
    default=64,
    show_default=True,
    help="Request threads. Slow and idle connections hold none; a ?wait request holds one while "
    "it waits (each student at most --per-student of them; an eighth of the threads never wait).",
)
@click.option(
    "--max-queue",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Checks that may wait for a grader; more get 429 with Retry-After.",
)
@click.option(
    "--per-student",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Checks one student may have waiting at once.",
)
@click.option(
    "--rate-limit",
    default="30 per minute",
    show_default=True,
    help="Checks per student (per address when anonymous), e.g. '10 per minute;100 per hour'.",
)
@click.option(
    "--check-seconds",
    type=click.FloatRange(min=5),
    default=60.0,
    show_default=True,
    help="Wall clock for one whole check; past it the grader is replaced and the student told "
    "it was our fault.",
)
@sandbox_option(SANDBOX_HELP, choices=("bwrap", "process"))
@no_sandbox_option("Serve")
@click.option(
    "--behind-proxy",
    is_flag=True,
    help="Trust one reverse proxy's X-Forwarded-For/-Proto/-Host (for client addresses and Secure cookies).",
)
@click.option(
    "--trusted-proxy",
    "trusted_proxies",
    multiple=True,
    metavar="ADDRESS",
    help="With --behind-proxy: an address or network the reverse proxy connects from (repeatable; "
    "default 127.0.0.1 and ::1). Forwarded headers from any other peer are ignored.",
)
@click.option(
    "--public-url",
    default="",
    metavar="URL",
    help="The address students use, e.g. https://menace.example.edu (for links; https makes cookies Secure).",
)
@click.pass_context
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    db_url: str | None,
    workers: int | None,
    queue: str,
    broker_url: str | None,
    web_processes: int,
    course: Path | None,
    open_practice: bool,
    threads: int,
    max_queue: int,
    per_student: int,
    rate_limit: str,
    check_seconds: float,
    sandbox: str,
    accept_no_sandbox: bool,
    behind_proxy: bool,
    trusted_proxies: tuple[str, ...],
    public_url: str,
) -> int:
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
        return 0
    from limits import parse_many

    try:
        parse_many(rate_limit)
    except ValueError as error:
        raise UsageError(f"--rate-limit {rate_limit!r} is not a limit like '30 per minute'") from error
    from menace_course.service.config import ServiceConfig, default_workers
    from menace_course.service.db.engine import describe

    if trusted_proxies:
        from menace_course.service.proxy import parse_proxies

        if not behind_proxy:
            raise UsageError("--trusted-proxy needs --behind-proxy (without it no forwarded header is read)")
        try:
            trusted_proxies = tuple(str(network) for network in parse_proxies(trusted_proxies))
        except ValueError as error:
            raise UsageError(f"--trusted-proxy {error}") from error
    the_course = service_course(course)
    kind = _sandbox(sandbox, accept_no_sandbox)
    _check_port(host, port)
    url = open_database(the_course, db_url)
    if queue == "procrastinate":
        _check_queue(url, broker_url, workers)
    elif web_processes > 1:
        raise UsageError(
            "--web-processes needs --queue procrastinate: the embedded queue lives in one process"
        )
    config = ServiceConfig(
        course=the_course.root,
        db_url=url,
        host=host,
        port=port,
        workers=workers or default_workers(),
        threads=threads,
        open=open_practice,
        sandbox=kind,
        max_queue=max_queue,
        per_user_queued=per_student,
        rate_limit=rate_limit,
        check_seconds=check_seconds,
        behind_proxy=behind_proxy,
        trusted_proxies=trusted_proxies or ServiceConfig.trusted_proxies,
        public_url=public_url.rstrip("/"),
        queue=queue,
        broker_url=broker_url or "",
        web_processes=web_processes,
    )
    if kind == "process":
        click.echo(NO_SANDBOX_WARNING, err=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            f"note: listening on {host}: put a reverse proxy with TLS in front (README, Security).", err=True
        )

    def announce(address: str) -> None:
        mode = "open practice (no sign-in needed)" if config.open else "students sign in with tokens"
        click.echo(
            f"menace serve: {address}\n"
            f"  course    {the_course.root}\n"
            f"  database  {describe(url)}\n"
            f"  graders   {_graders(config)}, queue of {max_queue}; {mode}\n"
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
