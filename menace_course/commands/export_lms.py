"""``menace export gradescope`` and ``menace export nbgrader``: a challenge as an LMS autograder.

Both build something the instructor uploads or keeps: they hold the hidden tests and the
reference solution, so neither is ever given to students (``menace kit`` is for them).
"""

from __future__ import annotations

from pathlib import Path

import click

from menace_course.commands.options import challenge_option, course_option, force_option, sandbox_option
from menace_course.course import find_course
from menace_course.errors import UsageError
from menace_course.exports import counted
from menace_course.exports.gradescope_results import VISIBILITIES


@click.command()
@challenge_option("The challenge to export.")
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The zip to write, e.g. autograder.zip.",
)
@click.option(
    "--hidden-visibility",
    type=click.Choice(VISIBILITIES),
    default="after_published",
    show_default=True,
    help="When students see the hidden tests' names and hints (Gradescope's visibility; "
    "hidden is refused for tests that carry points).",
)
@sandbox_option("How the autograder isolates student code (auto: bubblewrap where the container allows it).")
@force_option("Replace the zip if it exists.")
@course_option
def gradescope(
    slug: str, out: Path, hidden_visibility: str, sandbox: str, force: bool, course: Path | None
) -> int:
    """Build a Gradescope autograder zip (setup.sh, run_autograder) for one challenge.

    \b
    Upload the zip as the assignment's "Autograder" (base image: Ubuntu 22.04 or newer).
    Every test becomes a Gradescope test with its own points; hidden tests show only
    their name and hint, and only from the time --hidden-visibility says. The zip holds
    the hidden tests and the reference solution: keep it to yourself.

    \b
    Example:
      menace export gradescope --challenge after_game --out autograder.zip
    """
    from menace_course.exports.gradescope import build_autograder

    try:
        built = build_autograder(
            find_course(course), slug, out, hidden=hidden_visibility, sandbox=sandbox, force=force
        )
    except OSError as error:  # a folder that cannot be made or written
        raise UsageError(f"cannot write {out}: {error.strerror or error}") from error
    click.echo(
        f"wrote {built.zip_path}: {counted(built.tests, 'test')} ({built.hidden_tests} hidden, "
        f"{hidden_visibility} on Gradescope), {built.points:g} {'point' if built.points == 1 else 'points'}"
    )
    if built.hidden_tests == 0:
        click.echo(f"note: {slug} has no hidden tests; the autograder runs its examples only")
    click.echo("upload it in Gradescope: Configure Autograder > Zip file upload")
    return 0


@click.command()
@challenge_option("The challenge to export.")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The nbgrader course folder (created if needed; other assignments in it are kept).",
)
@force_option("Replace this assignment's source if it exists.")
@course_option
def nbgrader(slug: str, out_dir: Path, force: bool, course: Path | None) -> int:
    """Write an nbgrader course folder with one assignment: the challenge as a notebook.

    \b
    The source notebook has the challenge text, the reference solution between
    ### BEGIN SOLUTION / ### END SOLUTION, a locked cell that checks the answer with
    menace, and one autograded test cell per test, each worth the test's points. No
    cell holds test code or answers. nbgrader_config.py makes nbgrader autograde grade
    the notebook file with menace, in its sandbox, starting no kernel; nbgrader's Python
    needs menace-course and the course's hidden tests (menace.json in OUT names it).

    \b
    Example:
      menace export nbgrader --challenge after_game --out nbgrader-course
      cd nbgrader-course && nbgrader generate_assignment after_game
    """
    from menace_course.exports.nbgrader import KERNEL_NEEDS, export_assignment

    try:
        written = export_assignment(find_course(course), slug, out_dir, force=force)
    except OSError as error:  # a folder that cannot be made or written
        raise UsageError(f"cannot write to {out_dir}: {error.strerror or error}") from error
    points = "point" if written.points == 1 else "points"
    cells = counted(written.test_cells, "test cell")
    click.echo(f"wrote {written.notebook} ({cells}, {written.points:g} {points})")
    if written.config_written:
        click.echo(f"wrote {written.config}")
    else:
        click.echo(f"kept the existing {written.config}")
    click.echo(f"wrote {written.marker}")
    click.echo("note: " + KERNEL_NEEDS.format(marker=written.marker.name, course=find_course(course).root))
    click.echo(f"next: cd {out_dir} && nbgrader generate_assignment {written.assignment}")
    return 0
