"""``menace show SLUG``: a challenge's text (its README), in the terminal.

The text is what the challenge asks for: the function to write, its rules, and what the
lesson leaves open, settled. It is in every course, a student's kit too, so a student who
has only the kit can read the task where they work. In a terminal it is drawn with rich's
markdown (headings, tables, code); piped or redirected, the markdown itself is printed,
so ``menace show after_game > after_game.md`` keeps it as it was written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from menace_course import catalog
from menace_course.commands.options import complete_slugs, course_option, lang_option
from menace_course.course import find_course
from menace_course.errors import CourseError


@click.command()
@click.argument("slug", shell_complete=complete_slugs)
@click.option(
    "--markdown",
    "as_markdown",
    is_flag=True,
    help="Print the markdown as written (the default when the output is not a terminal).",
)
@course_option
@lang_option
def show(slug: str, as_markdown: bool, course: Path | None) -> int:
    """Show the text of the challenge SLUG: what to write, and its rules.

    \b
    Examples:
      menace show after_game
      menace show after_game --markdown > after_game.md
    Then: menace start after_game (the starter file), menace check after_game.py.
    """
    the_course = find_course(course)
    challenge = catalog.load_challenge(the_course, slug.removesuffix(".py"))
    try:
        text = challenge.text.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        from menace_course.language import gettext as _

        raise CourseError(
            _("cannot read the text of %(slug)s, %(path)s: %(error)s")
            % {"slug": challenge.slug, "path": challenge.text, "error": error}
        ) from error
    if as_markdown or not sys.stdout.isatty():
        click.echo(text.rstrip("\n") + "\n", nl=False)
        return 0
    from menace_course.language import gettext as _

    next_steps = _("Start from the starter file: menace start %(slug)s") % {"slug": challenge.slug} + "\n"
    next_steps += _("Check your function:         menace check %(slug)s.py") % {"slug": challenge.slug} + "\n"
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console(highlight=False)
    console.print(Markdown(text, code_theme="ansi_dark"))
    console.print()
    console.print(next_steps, end="", style="dim")
    return 0
