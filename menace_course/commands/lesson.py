"""``menace step`` and ``menace start``: the lesson's own programs.

``menace step N`` runs the page's Step N program and prints exactly what the page
prints. The program is ``reference/steps/stepN.py`` of the course (or of the copy
bundled with the package, or of the source checkout the package runs from); where
none is installed, the same computation is done with the package's engine
(:mod:`menace_course.lesson.experiments.page_steps`), which gives the same output.

``menace start`` copies a starter file or a step program into the current folder.
"""

from __future__ import annotations

import io
import re
import runpy
import sys
from collections.abc import Mapping
from contextlib import redirect_stdout
from pathlib import Path

import click

from menace_course.commands.options import complete_slugs, lang_option
from menace_course.course import BUNDLED_COURSE, find_course
from menace_course.errors import CourseError, UnknownChallenge, UsageError
from menace_course.language import gettext as _
from menace_course.language import ngettext
from menace_course.lesson import pixels
from menace_course.lesson.experiments.page_steps import COLOURS, STEPS
from menace_course.lesson.pixels import Picture
from menace_course.lesson.program_files import program_files

__all__ = ["start", "step"]

#: A source checkout's step programs (when the package runs from one).
SOURCE_STEPS = Path(__file__).resolve().parents[2] / "reference" / "steps"
STEP_SLUG = re.compile(r"step([1-4])")


def step_program(number: int, course_dir: Path | None = None) -> Path | None:
    """The file of the page's Step ``number`` program, or None if none is installed.

    Raises:
        CourseError: ``course_dir`` was given and is not a course.
    """
    folders = []
    try:
        folders.append(find_course(course_dir).reference_dir / "steps")
    except CourseError:
        if course_dir is not None:
            raise
    folders += [BUNDLED_COURSE / "reference" / "steps", SOURCE_STEPS]
    for folder in folders:
        if (folder / f"step{number}.py").is_file():
            return folder / f"step{number}.py"
    return None


def run_step(number: int, course_dir: Path | None = None) -> tuple[list[str], list[Picture]]:
    """Run Step ``number``; return the lines it printed and the pictures it drew (as data)."""
    program = step_program(number, course_dir)
    pictures: list[Picture] = []
    if program is None:
        output = STEPS[number]()
        if output.picture is not None:
            pictures.append((output.picture, COLOURS))
        return list(output.lines), pictures

    printed = io.StringIO()
    with pixels.captured_pictures() as drawn, redirect_stdout(printed):
        runpy.run_path(str(program), run_name="__main__")
    pictures += drawn
    return printed.getvalue().splitlines(), pictures


_COURSE_OPTION = click.option(
    "--course",
    "course_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="The course folder (default: found from here upwards, else the installed one).",
)


@click.command()
@click.argument("number", metavar="N", type=int)
@click.option(
    "--picture",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Steps 3 and 4: write the picture of the games to this .png or .svg file.",
)
@_COURSE_OPTION
def step(number: int, picture: Path | None, course_dir: Path | None) -> int:
    """Run Step N of the lesson (1 to 4) and print what the page prints.

    \b
    Step 1  how many boxes MENACE needs (304)
    Step 2  a box of beads, and ten beads drawn from it
    Step 3  300 games against the perfect player, learning as it goes
    Step 4  1,000 games against a random player
    Steps 3 and 4 also draw every game as a coloured square: in the terminal,
    or into a file with --picture games.png. To get a step's program to read
    and change: menace start step3
    """
    if number not in STEPS:
        raise UsageError(_("there is no Step %(n)s: the lesson has Steps 1 to 4") % {"n": number})
    if picture is not None and number < 3:
        raise UsageError(_("Step %(n)s draws no picture; Steps 3 and 4 do") % {"n": number})
    if picture is not None and picture.suffix.lower() not in (".png", ".svg"):
        raise UsageError(_("--picture %(picture)s: the name must end in .png or .svg") % {"picture": picture})
    lines, pictures = run_step(number, course_dir)
    for line in lines:
        click.echo(line)
    for rows, colours in pictures:
        if picture is not None:
            pixels.show_grid(rows, colours, picture)
            click.echo(f"Picture written to {picture}", err=True)
        elif sys.stdout.isatty():
            click.echo()
            pixels.show_grid(rows, colours)
    return 0


def step_files(number: int, course_dir: Path | None) -> dict[str, str]:
    """The files of Step ``number`` for a student's folder: the program and what it imports."""
    program = step_program(number, course_dir)
    if program is None:
        raise CourseError(
            _(
                "the program of Step %(n)s is not installed here; "
                "run inside the course folder or pass --course DIR"
            )
            % {"n": number}
        )
    return program_files(program)


def challenge_files(slug: str, course_dir: Path | None) -> dict[str, str]:
    """A challenge's starter file, named after the challenge."""
    course = find_course(course_dir)
    starter = course.challenges_dir / slug / "starter.py"
    if not starter.is_file():
        known = [p.parent.name for p in course.challenges_dir.glob("*/starter.py")]
        raise UnknownChallenge(slug, [*known, "step1", "step2", "step3", "step4"])
    return {f"{slug}.py": starter.read_text(encoding="utf-8")}


def write_files(files: Mapping[str, str], folder: Path, force: bool) -> list[str]:
    """Write the files into ``folder``; return the names written.

    A file that is already there with the same text is left alone. A different file
    is only replaced with ``force``.
    """
    clashes = [
        name
        for name, text in files.items()
        if (folder / name).exists() and (folder / name).read_text(encoding="utf-8") != text
    ]
    if clashes and not force:
        raise UsageError(
            ngettext(
                "%(names)s is already here, and different; use --force to replace it",
                "%(names)s are already here, and different; use --force to replace them",
                len(clashes),
            )
            % {"names": ", ".join(clashes)}
        )
    written = []
    for name, text in files.items():
        target = folder / name
        if not target.exists() or name in clashes:
            target.write_text(text, encoding="utf-8")
            written.append(name)
    return written


def _complete_start(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion for ``menace start``: the challenges, then step1 to step4."""
    steps = [f"step{number}" for number in sorted(STEPS) if f"step{number}".startswith(incomplete)]
    return complete_slugs(ctx, param, incomplete) + steps


@click.command()
@click.argument("slug", shell_complete=_complete_start)
@click.option("--force", is_flag=True, help="Replace files that are already here.")
@_COURSE_OPTION
@lang_option
def start(slug: str, force: bool, course_dir: Path | None) -> int:
    """Write a challenge's starter file, or a step program, into this folder.

    \b
    SLUG is a challenge's name, for a file to write your function in:
        menace start after_game      writes after_game.py
    or step1 to step4, for the lesson's program and what it imports:
        menace start step3           writes step3.py, noughts.py, pixels.py
        python3 step3.py             runs it, with the page's numbers
    An existing file that differs is never replaced, unless you add --force.
    """
    found = STEP_SLUG.fullmatch(slug)
    if found:
        files = step_files(int(found.group(1)), course_dir)
        next_step = _("Run it: python3 %(slug)s.py") % {"slug": slug}
    else:
        files = challenge_files(slug, course_dir)
        next_step = (
            _("What to write: menace show %(slug)s") % {"slug": slug}
            + "\n"
            + _("Write your function in %(slug)s.py, then: menace check %(slug)s.py") % {"slug": slug}
        )
    written = write_files(files, Path.cwd(), force)
    if written:
        click.echo(_("Wrote %(files)s.") % {"files": ", ".join(written)})
    else:
        click.echo(_("%(files)s already here, unchanged.") % {"files": ", ".join(files)})
    click.echo(next_step)
    return 0
