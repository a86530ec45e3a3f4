"""``menace lti ...``: connect the check service to Canvas, Moodle or any LTI 1.3 platform.

::

    menace lti tool-config [--url URL] [--format text|json|canvas-json]
                                      what to type into the LMS's form
    menace lti add-platform --issuer ... --client-id ... --deployment-id ... (repeatable)
        --auth-login-url ... --auth-token-url ... --key-set-url ...
                                      register an LMS (again: update it, add deployments)
    menace lti list-platforms         what is registered
    menace lti remove-platform --issuer ... --client-id ... [--deployment-id ...]
    menace lti keys                   the tool's signing keys (made on first use)
    menace lti rotate-keys [--finish] start a key rotation / end it

They act on the same database and key folder as ``menace serve`` in the same course
(``--course``, ``--db``); a running service sees the change at its next launch.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from menace_course.commands.options import course_option
from menace_course.course import find_course
from menace_course.errors import UsageError

if TYPE_CHECKING:
    from menace_course.service.db.engine import Database

db_option = click.option(
    "--db",
    "db_url",
    default="",
    metavar="URL",
    help="The service's database (an SQLAlchemy URL); default: the one menace serve uses.",
)


def _open(course: Path | None, db_url: str) -> tuple[Database, Path]:
    """The service's database (migrated) and its state folder."""
    from menace_course.service.config import ServiceConfig
    from menace_course.service.db.engine import Database

    config = ServiceConfig(course=find_course(course).root, db_url=db_url)
    db = Database(config.database_url)
    db.upgrade()
    return db, config.state_dir


@click.group()
def lti() -> None:
    """Connect the check service to an LMS with LTI 1.3 (Canvas, Moodle, ...).

    \b
    Step by step: docs/lti.md. In short:
      1. menace lti tool-config --url https://menace.example.edu   (type it into the LMS)
      2. menace lti add-platform ...                               (what the LMS shows back)
      3. menace serve; add the activity in a course; students click it
    """


@lti.command("tool-config")
@click.option(
    "--url",
    "base_url",
    default="http://127.0.0.1:8000",
    show_default=True,
    help="The service's public address, as the LMS and students' browsers reach it (https in production).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "canvas-json"]),
    default="text",
    show_default=True,
    help="text: the fields per LMS; json: every value; canvas-json: Canvas's 'Paste JSON' configuration.",
)
def tool_config(base_url: str, output_format: str) -> int:
    """Print what an LMS asks for when the tool is added (URLs, placements, scopes)."""
    import json

    from menace_course.service.lti.registry import url_problem
    from menace_course.service.lti.toolconfig import ToolUrls, as_json, as_text, canvas_json

    base = base_url.rstrip("/")
    problem = url_problem(base)
    if problem:
        raise UsageError(f"--url {base_url!r}: {problem}")
    urls = ToolUrls(base)
    if output_format == "json":
        click.echo(as_json(urls))
    elif output_format == "canvas-json":
        click.echo(json.dumps(canvas_json(urls), indent=2))
    else:
        click.echo(as_text(urls), nl=False)
    return 0


@lti.command("add-platform")
@click.option(
    "--issuer", required=True, help="The platform's issuer (iss), e.g. https://canvas.instructure.com."
)
@click.option(
    "--client-id", required=True, help="The client id the LMS gave the tool (Canvas: the developer key's id)."
)
@click.option(
    "--deployment-id",
    "deployment_ids",
    multiple=True,
    required=True,
    help="A deployment id the LMS launches with (repeat for several).",
)
@click.option("--auth-login-url", required=True, help="The platform's OIDC authorization URL.")
@click.option("--auth-token-url", required=True, help="The platform's OAuth2 token URL (for grade passback).")
@click.option("--key-set-url", required=True, help="The platform's public key set (JWKS) URL.")
@click.option(
    "--auth-audience", default=None, help="The token URL's audience, if the LMS says it differs (rare)."
)
@click.option(
    "--grades-origin",
    "grades_origins",
    multiple=True,
    metavar="ORIGIN",
    help="Where the LMS serves grades, when not on the hosts above (Canvas cloud: "
    "https://SCHOOL.instructure.com); repeatable. Grade URLs anywhere else are never sent the token.",
)
@course_option
@db_option
def add_platform(
    issuer: str,
    client_id: str,
    deployment_ids: tuple[str, ...],
    auth_login_url: str,
    auth_token_url: str,
    key_set_url: str,
    auth_audience: str | None,
    grades_origins: tuple[str, ...],
    course: Path | None,
    db_url: str,
) -> int:
    """Register an LMS (a platform) and its deployments; run again to update it or add deployments."""
    from menace_course.service.lti.keys import KeyStore
    from menace_course.service.lti.registry import PlatformSpec, add_platform
    from menace_course.service.lti.runtime import keys_folder

    spec = PlatformSpec(
        issuer.strip(),
        client_id.strip(),
        tuple(d.strip() for d in deployment_ids),
        auth_login_url.strip(),
        auth_token_url.strip(),
        key_set_url.strip(),
        auth_audience.strip() if auth_audience else None,
    )
    from menace_course.service.lti.origins import origin_of, set_grades_origins
    from menace_course.service.lti.registry import url_problem

    problems = spec.problems()
    for origin in grades_origins:
        problem = url_problem(origin) or (None if origin_of(origin) else "is not an origin")
        if problem:
            problems.append(f"--grades-origin {origin!r}: {problem}")
    if problems:
        raise UsageError("; ".join(problems))
    db, state_dir = _open(course, db_url)
    with db.writing() as session:
        added = add_platform(session, spec)
        if grades_origins:
            set_grades_origins(session, added.platform, list(grades_origins))
        deployments = [d.deployment_id for d in added.platform.deployments]
    key = KeyStore(keys_folder(state_dir)).current()
    verb = "registered" if added.created else "updated"
    click.echo(f"{verb} {spec.issuer} (client id {spec.client_id}); deployments: {', '.join(deployments)}")
    if not added.created and not added.new_deployments:
        click.echo("no new deployment (each was registered already)")
    click.echo(f"the tool signs with key {key.kid}; the LMS reads it from <service URL>/lti/jwks")
    return 0


@lti.command("list-platforms")
@course_option
@db_option
def list_platforms(course: Path | None, db_url: str) -> int:
    """List the registered platforms and their deployments."""
    from menace_course.service.lti.registry import list_platforms as registered

    db, _ = _open(course, db_url)
    with db.reading() as session:
        platforms = registered(session)
        if not platforms:
            click.echo("no platform registered yet: menace lti add-platform --help")
        for p in platforms:
            click.echo(f"{p.issuer}  client id {p.client_id}")
            click.echo(f"    deployments: {', '.join(d.deployment_id for d in p.deployments) or '(none)'}")
            click.echo(f"    login {p.auth_login_url}")
            click.echo(
                f"    token {p.auth_token_url}"
                + (f" (audience {p.auth_audience})" if p.auth_audience else "")
            )
            click.echo(f"    keys  {p.key_set_url}")
    return 0


@lti.command("remove-platform")
@click.option("--issuer", required=True, help="The platform's issuer.")
@click.option("--client-id", required=True, help="Its client id.")
@click.option(
    "--deployment-id", default=None, help="Remove only this deployment (default: the whole platform)."
)
@course_option
@db_option
def remove_platform(
    issuer: str, client_id: str, deployment_id: str | None, course: Path | None, db_url: str
) -> int:
    """Remove a platform (launches from it are refused from then on), or one of its deployments."""
    from menace_course.service.lti.registry import remove

    db, _ = _open(course, db_url)
    with db.writing() as session:
        click.echo(remove(session, issuer, client_id, deployment_id))
    return 0


@lti.command("keys")
@course_option
def keys(course: Path | None) -> int:
    """Show the tool's signing keys (made on first use), current first."""
    from menace_course.service.config import STATE_DIR
    from menace_course.service.lti.keys import KeyStore
    from menace_course.service.lti.runtime import keys_folder

    store = KeyStore(keys_folder(find_course(course).root / STATE_DIR))
    click.echo(f"current   {store.current().kid}   (signs from now on)")
    for key in store.previous():
        click.echo(f"previous  {key.kid}   (still published until: menace lti rotate-keys --finish)")
    click.echo(f"kept in {store.folder} (readable by this user only)")
    return 0


@lti.command("rotate-keys")
@click.option("--finish", is_flag=True, help="End a rotation: stop publishing the old keys and delete them.")
@course_option
def rotate_keys(finish: bool, course: Path | None) -> int:
    """Start a key rotation (a new key signs; the old stays published), or --finish it.

    \b
    Platforms read the tool's keys from /lti/jwks and may cache them: keep both for a day
    (the longest cache a platform is likely to keep), then run with --finish.
    """
    from menace_course.service.config import STATE_DIR
    from menace_course.service.lti.keys import KeyStore
    from menace_course.service.lti.runtime import keys_folder

    store = KeyStore(keys_folder(find_course(course).root / STATE_DIR))
    if finish:
        dropped = store.finish_rotation()
        if not dropped:
            click.echo("no rotation under way: only the current key is published")
        for kid in dropped:
            click.echo(f"retired {kid}")
        return 0
    new = store.rotate()
    click.echo(f"new key {new.kid} signs from now on")
    for key in store.previous():
        click.echo(f"still published: {key.kid}")
    click.echo("after a day, end the rotation with: menace lti rotate-keys --finish")
    return 0
