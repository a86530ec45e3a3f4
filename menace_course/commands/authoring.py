"""``menace new SLUG`` and ``menace validate [SLUG]``: the author's two commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from menace_course.commands.options import complete_slugs, course_option, sandbox_option
from menace_course.course import BUNDLED_COURSE, Course, find_course
from menace_course.errors import UsageError


def _author_course(explicit: Path | None) -> Course:
    """The course to work on: never the copy installed with the package (a student's kit), nor
    the clone an editable install lives in unless the author is working inside it."""
    course = find_course(explicit)
    inside = Path.cwd().resolve().is_relative_to(course.root)
    if course.root == BUNDLED_COURSE.resolve() or (explicit is None and not inside):
        raise UsageError(
            "no course here: run inside your course folder (the one with challenges/, "
            "hidden_tests/ and reference/) or pass --course DIR"
        )
    return course


@click.command()
@click.argument("slug")
@course_option
def new(slug: str, course: Path | None) -> int:
    """Scaffold the challenge SLUG: text, starter, examples, hidden tests, reference, hint.

    \b
    The new challenge is a small working example (twice a number) that passes
    `menace validate SLUG` at once; replace it piece by piece (docs/authoring.md).

    \b
    Example:
      menace new bead_total

    Exit code: 0 when the files are written, 2 when SLUG is refused (malformed, a
    keyword or a module's name, or already taken).
    """
    from menace_course.authoring.scaffold import scaffold

    the_course = _author_course(course)
    written = scaffold(the_course, slug)
    click.echo(f"Made the challenge {slug} in {the_course.root}:")
    for path in written:
        click.echo(f"  {path}")
    click.echo(
        f"\nNext: write reference/{slug}.py, then hidden_tests/{slug}/test_{slug}.py, "
        f"and run `menace validate {slug}` after each step."
    )
    return 0


@click.command()
@click.argument("slugs", metavar="[SLUG]...", nargs=-1, shell_complete=complete_slugs)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="A readable report, or JSON for programs.",
)
@sandbox_option("Where submissions and mutants run: bwrap isolates fully; process is faster to start.")
@click.option(
    "--jobs", type=click.IntRange(1, 64), default=2, show_default=True, help="Mutants judged at once."
)
@course_option
def validate(slugs: tuple[str, ...], output_format: str, sandbox: str, jobs: int, course: Path | None) -> int:
    """Prove the tests of each SLUG (default: every challenge) catch wrong solutions.

    \b
    Checks that the reference passes every test, twice alike and within the time
    budget; that the starter and every file in wrong/ fail; that the examples agree
    with the reference; that every hint has words; and that the tests kill at least
    90 % of the reference's mutants (small wrong versions of it), listing survivors.

    \b
    Examples:
      menace validate after_game
      menace validate --format json > validation.json

    Exit code: 0 when everything validates, 1 when something does not (the report says
    what and where), 2 for an unknown challenge or a sandbox that cannot run here.
    """
    from menace_course import catalog
    from menace_course.authoring.report import render_text
    from menace_course.authoring.validate import validate_course
    from menace_course.lesson.experiments.progress import progress_bar
    from menace_course.sandbox.launch import choose_kind

    the_course = _author_course(course)
    for slug in slugs:
        catalog.load_challenge(the_course, slug)  # an unknown slug: exit 2, with suggestions
    kind = choose_kind(sandbox)
    result = validate_course(the_course, list(slugs), kind, jobs=jobs, progress=progress_bar)
    if output_format == "json":
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(result, colour=sys.stdout.isatty()), nl=False)
    return 0 if result.ok else 1
