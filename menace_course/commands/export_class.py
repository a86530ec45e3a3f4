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
from menace_course.exports import read_results
from menace_course.exports.canvas import export_canvas
from menace_course.exports.moodle import write_worksheet
from menace_course.exports.plain_csv import write_plain


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
def canvas(out: Path, gradebook: Path, import_file: Path, column: str | None) -> int:
    """Fill the assignment's column of a Canvas gradebook with the grades in OUT.

    \b
    Every other cell stays as it was. Import the file in Canvas: Grades → Import.
    Exit code: 0 when every graded student was matched to a gradebook row, 1 when some
    were not (they are listed, and their grades are not in the file), 2 for bad input.

    \b
    Example:
      menace export canvas --results graded/ --gradebook gradebook.csv --out import.csv
    """
    if import_file.resolve() == gradebook.resolve():
        raise UsageError("--out must not be the --gradebook file itself: keep Canvas's export as it is")
    results = read_results(out)
    filled = export_canvas(results, gradebook, import_file, column)
    verb = "added the new column" if filled.new_column else "filled the column"
    click.echo(f"{verb} {filled.column!r} for {len(filled.matched)} of {len(results)} graded students")
    if filled.new_column:
        click.echo("note: Canvas creates a new assignment for a column without an id when you import it")
    if filled.scale != 1.0:
        click.echo(f"note: scores scaled to the assignment's {filled.points_possible:g} points possible")
    for result, why in filled.unmatched:
        click.secho(f"menace: NOT EXPORTED: {result.row.student} ({why})", err=True, fg="red", bold=True)
    click.echo(f"wrote {import_file}; in Canvas: Grades → Import")
    return 1 if filled.unmatched else 0


@click.command("moodle")
@results_option
@click.option(
    "--out",
    "import_file",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The CSV to import into Moodle.",
)
def moodle(out: Path, import_file: Path) -> int:
    """Write OUT's grades and feedback as a CSV for Moodle's import.

    \b
    Example:
      menace export moodle --results graded/ --out moodle.csv
    """
    results = read_results(out)
    without_id = write_worksheet(out, results, import_file)
    click.echo(f"wrote {import_file}: {len(results)} students")
    if without_id == 0:
        click.echo(
            "in Moodle, open the assignment: View all submissions → Grading action → Upload grading "
            "worksheet (the feedback type 'Offline grading worksheet' must be on)"
        )
    else:
        click.echo(
            f"{without_id} students have no Moodle participant id (their files did not come from "
            "Moodle's download): their Identifier is their name as graded. Import the file in "
            "Grades → Import → CSV file, mapping Identifier to username or email address and "
            "Grade to the assignment."
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
    click.echo(f"wrote {file}: {len(results)} students")
    return 0
