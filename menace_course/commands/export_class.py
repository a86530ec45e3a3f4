"""``menace export canvas``, ``moodle`` and ``csv``: a graded class's results handed to an LMS.

Each command reads what ``menace grade`` wrote in OUT (:func:`~menace_course.exports.read_results`),
calls its export in :mod:`menace_course.exports` to write the file, and says what to do
with it. The writing itself, and the formats' rules, live in the exports.
"""

from __future__ import annotations

from pathlib import Path

import click

from menace_course.commands.options import results_option
from menace_course.errors import UsageError
from menace_course.exports import counted, read_results
from menace_course.exports.canvas import export_canvas
from menace_course.exports.moodle import DEFAULT_MAX_GRADE, write_worksheet
from menace_course.exports.plain_csv import write_plain
from menace_course.safe_text import printable


@click.command("canvas")
@results_option
@click.option(
    "--gradebook",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The gradebook CSV exported from Canvas (Grades → Export → Export Entire Gradebook).",
)
@click.option(
    "--out",
    "import_file",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The CSV to import.",
)
@click.option(
    "--column",
    default=None,
    metavar='"TITLE (ID)"',
    help="The assignment's column (default: found by title).",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace grades already in the column with different ones, without a word.",
)
def canvas(out: Path, gradebook: Path, import_file: Path, column: str | None, overwrite: bool) -> int:
    """Fill the assignment's column of a Canvas gradebook with the grades in OUT.

    \b
    Every other cell stays as it was. Import the file in Canvas: Grades → Import.
    A grade already in the column that differs from the new one is kept, and the
    student listed, unless you pass --overwrite.
    Exit code: 0 when every graded student's grade is in the file, 1 when some are not
    (no matching row, or a different grade kept: they are listed), 2 for bad input.

    \b
    Example:
      menace export canvas --results graded/ --gradebook gradebook.csv --out import.csv
    """
    if import_file.resolve() == gradebook.resolve():
        raise UsageError("--out must not be the --gradebook file itself: keep Canvas's export as it is")
    results = read_results(out)
    filled = export_canvas(results, gradebook, import_file, column, overwrite)
    verb = "added the new column" if filled.new_column else "filled the column"
    graded = counted(len(results), "graded student")
    click.echo(f"{verb} {filled.column!r} for {len(filled.matched)} of {graded}")
    if filled.new_column:
        click.echo("note: Canvas creates a new assignment for a column without an id when you import it")
    if filled.scale != 1.0:
        click.echo(f"note: scores scaled to the assignment's {filled.points_possible:g} points possible")
    for result, why in filled.unmatched:
        name = printable(result.row.student)
        click.secho(f"menace: NOT EXPORTED: {name} ({printable(why)})", err=True, fg="red", bold=True)
    if filled.kept:
        click.secho(
            f"menace: {counted(len(filled.kept), 'student already has', 'students already have')} "
            f"a different grade in {filled.column!r}; "
            "it was KEPT (run again with --overwrite to replace it):",
            err=True,
            fg="red",
            bold=True,
        )
        for result, old, new in filled.kept:
            name = printable(result.row.student)
            click.secho(f"  {name}: {printable(old)} kept, {new} not written", err=True)
    click.echo(f"wrote {import_file}; in Canvas: Grades → Import")
    return 1 if filled.unmatched or filled.kept else 0


@click.command("moodle")
@results_option
@click.option(
    "--out",
    "import_file",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The CSV to import into Moodle.",
)
@click.option(
    "--max-grade",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_MAX_GRADE,
    show_default=True,
    help="The Moodle assignment's maximum grade: grades are scaled to it.",
)
def moodle(out: Path, import_file: Path, max_grade: float) -> int:
    """Write OUT's grades and feedback as a CSV for Moodle's import.

    \b
    Moodle reads a grade on the scale of the assignment's maximum grade (100 unless you
    changed it), so each score is scaled to --max-grade: 12 of 15 points is 80.

    \b
    Example:
      menace export moodle --results graded/ --out moodle.csv
      menace export moodle --results graded/ --out moodle.csv --max-grade 15
    """
    results = read_results(out)
    sheet = write_worksheet(out, results, import_file, max_grade)
    click.echo(f"wrote {import_file}: {counted(len(results), 'student')}")
    if round(sheet.max_score, 6) != round(max_grade, 6):
        click.secho(
            f"grades are SCALED from {sheet.max_score:g} points to {max_grade:g} (--max-grade): "
            f"the Moodle assignment's maximum grade must be {max_grade:g}; if it is not, run again "
            "with --max-grade set to it",
            fg="yellow",
            bold=True,
        )
    else:
        click.echo(f"grades are in points, out of {max_grade:g}, the Moodle assignment's maximum grade")
    if sheet.without_id == 0:
        click.echo(
            "in Moodle, open the assignment: View all submissions → Grading action → Upload grading "
            "worksheet (the feedback type 'Offline grading worksheet' must be on)"
        )
    else:
        click.echo(
            f"{counted(sheet.without_id, 'student has', 'students have')} no Moodle participant id "
            "(files that did not come from Moodle's download): the Identifier is the name as graded. "
            "Import the file in "
            "Grades → Import → CSV file, mapping Identifier to username or email address and "
            "Grade to the assignment."
        )
    if sheet.escaped:
        names = ", ".join(printable(name) for name in sheet.escaped)
        these, were, them = ("identifier starts", "was", "it")
        if len(sheet.escaped) > 1:
            these, were, them = ("identifiers start", "were", "them")
        click.secho(
            f"menace: {len(sheet.escaped)} {these} like a spreadsheet formula and {were} written "
            f"with a leading ' so that no spreadsheet runs {them}; Moodle will not match {them}: {names}",
            err=True,
            fg="red",
            bold=True,
        )
    return 0


@click.command("csv")
@results_option
@click.option(
    "--out", "file", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The CSV to write."
)
def plain_csv(out: Path, file: Path) -> int:
    """Write OUT's grades as a plain CSV: student, ids, score, max_score, percent, status.

    \b
    Example:
      menace export csv --results graded/ --out grades-plain.csv
    """
    results = read_results(out)
    write_plain(results, file)
    click.echo(f"wrote {file}: {counted(len(results), 'student')}")
    return 0
