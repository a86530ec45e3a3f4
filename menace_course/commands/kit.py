"""``menace kit --out DIR``: build the wheel students install (the public course only)."""

from __future__ import annotations

from pathlib import Path

import click

from menace_course.commands.options import course_option, force_option
from menace_course.course import find_course
from menace_course.errors import UsageError
from menace_course.kit import build_kit


@click.command()
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(path_type=Path),
    help="Folder to write the kit's wheel and README.txt into (created if needed).",
)
@force_option("Replace a kit already in the folder.")
@course_option
def kit(out_dir: Path, force: bool, course: Path | None) -> int:
    """Build the student kit: this package with the course's public parts inside.

    \b
    It holds the challenges, their starters and examples, the hidden tests' names and
    hints, the feedback wording and the lesson's step programs. It never holds the
    hidden test code, their expected values or the reference solutions.

    \b
    Example:
      menace kit --out kit/
      python3 -m pip install kit/menace_course-*.whl    (what students run)
    """
    try:
        built = build_kit(find_course(course), out_dir, force=force)
    except OSError as error:  # a folder that cannot be made or written
        raise UsageError(f"cannot write the kit to {out_dir}: {error.strerror or error}") from error
    click.echo(f"wrote {built.wheel} ({len(built.challenges)} challenges: {', '.join(built.challenges)})")
    click.echo(f"students install it with:  python3 -m pip install {built.wheel.name}")
    click.echo(f"instructions for them:     {built.instructions}")
    return 0
