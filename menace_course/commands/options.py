"""The command-line options several ``menace`` commands share, defined once.

Each is a click decorator (or a function that makes one, where the wording differs by
command), so ``--course`` or ``--sandbox`` mean the same thing and read the same way in
every command that takes them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

#: ``--course DIR``: the course folder (default: found from here upwards, else the installed one).
course_option = click.option(
    "--course",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The course folder (default: found from here upwards, else the installed one).",
)

#: ``--results OUT``: the folder ``menace grade`` wrote (every class export takes it).
results_option = click.option(
    "--results",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="OUT of menace grade.",
)


def complete_slugs(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion (README, "Shell completion"): the course's challenges that start so.

    The course is the one the command would use: ``--course`` if it is already typed, else
    the one found from here upwards, else the installed kit's. Completion never fails
    loudly: with no course to be found, it offers nothing.
    """
    from menace_course import catalog
    from menace_course.course import find_course
    from menace_course.errors import MenaceError

    folder = ctx.params.get("course") or ctx.params.get("course_dir")
    try:
        slugs = catalog.list_slugs(find_course(folder if isinstance(folder, Path) else None))
    except (MenaceError, OSError):
        return []
    return [slug for slug in slugs if slug.startswith(incomplete)]


def challenge_option(help: str, *, required: bool = True) -> Callable[[F], F]:
    """``--challenge SLUG``, passed to the command as ``slug`` (the shell completes the slugs)."""
    return click.option(
        "--challenge", "slug", required=required, metavar="SLUG", help=help, shell_complete=complete_slugs
    )


#: What ``--sandbox bwrap|process`` means, for the commands that refuse to run unsandboxed silently.
SANDBOX_HELP = "bwrap isolates each submission; process does not (needs --i-accept-no-sandbox)."


def sandbox_option(help: str, *, choices: tuple[str, ...] = ("auto", "bwrap", "process")) -> Callable[[F], F]:
    """``--sandbox``: which sandbox runs student code (the first choice is the default)."""
    return click.option(
        "--sandbox",
        type=click.Choice(list(choices)),
        default=choices[0],
        show_default=True,
        help=help,
    )


def no_sandbox_option(verb: str, who: str = "this user") -> Callable[[F], F]:
    """``--i-accept-no-sandbox``: go on without bubblewrap (``verb``: what the command does)."""
    return click.option(
        "--i-accept-no-sandbox",
        "accept_no_sandbox",
        is_flag=True,
        help=f"{verb} even without bubblewrap: students' code then runs unisolated, as {who}.",
    )


def force_option(help: str) -> Callable[[F], F]:
    """``--force``: replace what a command would otherwise refuse to overwrite."""
    return click.option("--force", is_flag=True, help=help)


#: Where ``--lang``'s choice is kept for a usage error (``commands/usage_errors.py``): by the
#: time the error is shown, the command's context has closed and its language was put back.
CHOSEN_LANGUAGE = "menace.language"


def _use_language(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    """Speak ``--lang``'s language from now on; an unknown one: English, and one line that says so."""
    from menace_course import language

    if not value:
        return
    found = language.known(value)
    if found is None:
        click.echo(f"menace: no translation for --lang {value!r}; showing English.", err=True)
        found = language.ENGLISH
    token = language.use(found)
    ctx.call_on_close(lambda: language.reset(token))  # a command run in-process leaves no language behind
    ctx.meta[CHOSEN_LANGUAGE] = found


#: ``--lang LANG``: the language of what the command prints (default: from LANG / LC_ALL / LC_MESSAGES).
lang_option = click.option(
    "--lang",
    metavar="LANG",
    default=None,
    expose_value=False,
    is_eager=True,
    callback=_use_language,
    help="The language to speak: en or zh_TW (default: from LANG, LC_ALL or LC_MESSAGES).",
)
