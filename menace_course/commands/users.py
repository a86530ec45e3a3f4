"""``menace users add|list|revoke|link``: who may use the check service (outside an LMS).

``add`` prints one ``NAME TOKEN`` line per user, and nothing else on standard output, so
that it can be redirected into a file or a mail merge; ``--out FILE`` writes them to a file
only its owner can read. Either way, a file inside a git repository that does not ignore it
is warned about (a course folder is often one). A token is shown only then: the database
keeps its SHA-256, so a lost token is replaced (``add`` again), never recovered.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from menace_course.commands.options import course_option
from menace_course.commands.serve import db_option, open_database, service_course
from menace_course.errors import UsageError

NAME = re.compile(r"^[\w][\w.@+-]{0,99}$", re.UNICODE)


def _database(course: Path | None, db_url: str | None) -> object:
    from menace_course.service.db.engine import Database

    return Database(open_database(service_course(course), db_url))


def _check_names(names: tuple[str, ...]) -> None:
    for name in names:
        if not NAME.match(name):
            raise UsageError(
                f"{name!r} is not a user name: use letters, digits and . _ - @ + (no spaces), up to 100"
            )
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise UsageError(f"named twice: {', '.join(repeated)}")


def _hand_out(lines: list[str], out: Path | None) -> None:
    """Print the secret ``lines``, or write them to ``out`` (0600); warn if they land in git."""
    from menace_course.secrets_file import redirected_stdout_file, tracked_by_git_warning, write_private

    if out is not None:
        try:
            write_private(out, "".join(f"{line}\n" for line in lines))
        except OSError as error:
            for line in lines:  # the tokens are made: never lose them
                click.echo(line)
            raise UsageError(f"could not write {out} ({error.strerror}); they are printed above") from error
    else:
        for line in lines:
            click.echo(line)
    written = out if out is not None else redirected_stdout_file()
    warning = tracked_by_git_warning(written) if written is not None else None
    if warning:
        click.echo(warning, err=True)


@click.group()
def users() -> None:
    """Students and instructors of the check service, and their tokens.

    \b
    Examples:
      menace users add alice bob --out ~/tokens.txt   one "NAME TOKEN" line each
      menace users add --instructor carol
      menace users link alice --url https://menace.example.edu
      menace users list
      menace users revoke bob
    """


@users.command("add")
@click.argument("names", nargs=-1, required=True)
@click.option("--instructor", is_flag=True, help="Instructors also see the class table of every challenge.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the NAME TOKEN lines to this file (only you can read it) instead of printing them.",
)
@db_option
@course_option
def add(
    names: tuple[str, ...], instructor: bool, out: Path | None, db_url: str | None, course: Path | None
) -> int:
    """Add users (or give existing ones a new token); print NAME TOKEN for each.

    A user added again keeps their attempts and gets a fresh token; their old tokens stay
    valid until `menace users revoke NAME`.
    """
    from menace_course.service.db.engine import Database
    from menace_course.service.db.people import add_local_user
    from menace_course.service.db.tables import Role

    _check_names(names)
    database = _database(course, db_url)
    assert isinstance(database, Database)
    role = Role.INSTRUCTOR if instructor else Role.LEARNER
    lines = []
    with database.writing() as session:
        for name in names:
            _, token = add_local_user(session, name, role)
            lines.append(f"{name} {token}")
    database.dispose()
    _hand_out(lines, out)
    where = "students put it in MENACE_TOKEN, or sign in with it on the service's page"
    if instructor:
        where = "sign in with it on the service's page, then /instructor shows the class table"
    shown = f"each token is in {out}, and shown nowhere else" if out else "each token is shown this once"
    click.echo(f"{len(names)} {role.value}{'s' if len(names) != 1 else ''}: {shown}; {where}.", err=True)
    return 0


@users.command("list")
@db_option
@course_option
def list_users(db_url: str | None, course: Path | None) -> int:
    """List the service's own users: role, live tokens, attempts, last attempt."""
    from menace_course.service.db.engine import Database
    from menace_course.service.db.people import list_local_users

    database = _database(course, db_url)
    assert isinstance(database, Database)
    with database.reading() as session:
        rows = list_local_users(session)
    database.dispose()
    if not rows:
        click.echo("no users yet: menace users add NAME...", err=True)
        return 0
    click.echo(f"{'name':<24} {'role':<10} {'state':<8} {'tokens':>6} {'attempts':>8}  last attempt (UTC)")
    for row in rows:
        last = row.last_attempt.strftime("%Y-%m-%d %H:%M") if row.last_attempt else "-"
        state = "active" if row.active else "revoked"
        click.echo(f"{row.name:<24} {row.role:<10} {state:<8} {row.tokens:>6} {row.attempts:>8}  {last}")
    return 0


@users.command("revoke")
@click.argument("names", nargs=-1, required=True)
@db_option
@course_option
def revoke(names: tuple[str, ...], db_url: str | None, course: Path | None) -> int:
    """Revoke users' tokens, login links and browser sessions (their attempts are kept)."""
    from menace_course.service.db.engine import Database
    from menace_course.service.db.people import local_user
    from menace_course.service.db.people import revoke as revoke_user

    database = _database(course, db_url)
    assert isinstance(database, Database)
    with database.writing() as session:
        found = {name: local_user(session, name) for name in names}
        unknown = sorted(n for n, u in found.items() if u is None)
        if unknown:
            raise UsageError(f"no such user: {', '.join(unknown)} (menace users list shows them)")
        counts = {name: revoke_user(session, user) for name, user in found.items() if user is not None}
    database.dispose()
    for name, count in counts.items():
        click.echo(f"{name}: revoked ({count} token{'s' if count != 1 else ''}; browser sessions ended)")
    return 0


@users.command("link")
@click.argument("names", nargs=-1, required=True)
@click.option(
    "--url",
    "base_url",
    required=True,
    metavar="URL",
    help="The service's address as students reach it, e.g. https://menace.example.edu.",
)
@click.option(
    "--days", type=click.IntRange(1, 90), default=7, show_default=True, help="How long a link works."
)
@db_option
@course_option
def link(names: tuple[str, ...], base_url: str, days: int, db_url: str | None, course: Path | None) -> int:
    """Print a one-time sign-in link per user (NAME URL): opened once, it signs that browser in."""
    from menace_course.service.db.engine import Database
    from menace_course.service.db.people import local_user, new_login_link

    if not base_url.startswith(("http://", "https://")):
        raise UsageError(f"--url {base_url!r} must start with http:// or https://")
    database = _database(course, db_url)
    assert isinstance(database, Database)
    lines = []
    with database.writing() as session:
        for name in names:
            user = local_user(session, name)
            if user is None or user.revoked_at is not None:
                raise UsageError(f"no active user {name!r}: menace users add {name} first")
            lines.append(f"{name} {base_url.rstrip('/')}/login/{new_login_link(session, user, days)}")
    database.dispose()
    _hand_out(lines, None)
    return 0
