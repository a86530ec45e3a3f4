"""``menace export canvas``: fill one assignment's column of a gradebook exported from Canvas.

Canvas imports the same CSV it exports (``lib/gradebook_importer.rb``): a header row that
starts ``Student, ID`` and ends its student columns with ``Section``; an optional row
whose first cell says ``Points Possible``; one row per student; assignment columns named
``Title (id)``. This export changes only the cells of one assignment's column, for the
students that were graded, and keeps every other cell, row, column, the delimiter, the
line endings and a byte-order mark as they were, so the import changes nothing else.

Students are matched by Canvas user id (from the names of Canvas's submission download),
else by SIS login or SIS user id (a plain ``jdoe.py`` is the student ``jdoe``), else by
name ("Doe, Jane" is ``doejane`` and ``janedoe``), and only when the match is unique. A
result that matches no row, or the same row as another, is never dropped quietly: it is
listed, and the command exits with 1.

A grade already in the column is never replaced by a different one unless asked
(``overwrite``): the old grade stays, the student is listed, and the command exits with 1.

The file may be opened in a spreadsheet before it is imported: a cell that would start a
formula gets a leading ``'`` (:func:`~menace_course.safe_text.csv_cell`; numbers, ``-`` and
``EX`` never do), and a cell holding either separator (``,`` or ``;``) or a tab is quoted,
whatever the file's own separator, so no cell can split into two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from menace_course.atomic import write_atomic
from menace_course.errors import UsageError
from menace_course.exports import Graded
from menace_course.exports.canvas_gradebook import Gradebook, read_gradebook
from menace_course.grading.record import number
from menace_course.safe_text import csv_cell


@dataclass
class Filled:
    """What the export did."""

    column: str
    new_column: bool
    matched: dict[int, Graded] = field(default_factory=dict)  #: gradebook row index -> result
    unmatched: list[tuple[Graded, str]] = field(default_factory=list)  #: result, why
    scale: float = 1.0  #: points possible / our max score, when Canvas's differs
    points_possible: float | None = None
    #: results whose row already had a different grade, kept: (result, grade kept, grade not written)
    kept: list[tuple[Graded, str, str]] = field(default_factory=list)


def _norm(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _name_keys(student: str) -> set[str]:
    """How a Canvas "Student" cell may be written: "Doe, Jane" -> doejane, janedoe."""
    keys = {_norm(student)}
    if "," in student:
        last, first = student.split(",", 1)
        keys.add(_norm(first + last))
    return keys


def _index(book: Gradebook) -> dict[str, dict[str, list[int]]]:
    index: dict[str, dict[str, list[int]]] = {"id": {}, "sis": {}, "name": {}}
    for i in book.student_rows:
        row = book.rows[i]
        index["id"].setdefault(book.cell(row, "ID").strip(), []).append(i)
        for column in ("SIS Login ID", "SIS User ID"):
            value = book.cell(row, column).strip().casefold()
            if value:
                index["sis"].setdefault(value, []).append(i)
        for key in _name_keys(book.cell(row, "Student")):
            index["name"].setdefault(key, []).append(i)
    return index


def _match(result: Graded, index: dict[str, dict[str, list[int]]]) -> tuple[int | None, str]:
    row = result.row
    canvas_id = row.lms.get("canvas_id")
    if canvas_id:
        found = index["id"].get(canvas_id, [])
        if len(found) == 1:
            return found[0], ""
        return None, f"no gradebook row has Canvas ID {canvas_id}"
    for kind, key in (("sis", row.student.casefold()), ("name", _norm(row.student))):
        found = sorted(set(index[kind].get(key, [])))
        if len(found) == 1:
            return found[0], ""
        if len(found) > 1:
            return None, f"{len(found)} gradebook rows match {row.student!r}"
    return None, f"no gradebook row has the SIS login, SIS user id or name {row.student!r}"


def _same_grade(old: str, new: str) -> bool:
    try:
        return abs(float(old.strip().replace(",", ".")) - float(new)) < 0.005
    except ValueError:
        return False


def fill(
    book: Gradebook,
    results: list[Graded],
    column: str | None,
    challenge_title: str,
    overwrite: bool = False,
) -> Filled:
    """Put each result's score in the assignment's column (see the module's docstring).

    Raises:
        UsageError: the column cannot be found and was not named, or names an unknown id.
    """
    index, is_new = book.assignment_column(column, challenge_title)
    filled = Filled(book.header[index], is_new)
    max_score = max((r.row.max_score for r in results), default=0.0)
    filled.points_possible = book.points_possible(index)
    if is_new:
        book.set_points_possible(index, max_score)
    elif filled.points_possible and max_score and filled.points_possible != max_score:
        filled.scale = filled.points_possible / max_score
    lookup = _index(book)
    claimed: dict[int, list[Graded]] = {}
    for result in results:
        row_index, why = _match(result, lookup)
        if row_index is None:
            filled.unmatched.append((result, why))
        else:
            claimed.setdefault(row_index, []).append(result)
    for row_index, claimants in claimed.items():
        if len(claimants) > 1:
            names = ", ".join(c.row.student for c in claimants)
            filled.unmatched += [(c, f"the same gradebook row as {names}") for c in claimants]
            continue
        new = number(claimants[0].row.score * filled.scale)
        row = book.rows[row_index]
        old = row[index].strip() if index < len(row) else ""
        if old not in ("", "-") and not _same_grade(old, new) and not overwrite:
            filled.kept.append((claimants[0], old, new))
            continue
        filled.matched[row_index] = claimants[0]
        book.set_cell(row_index, index, new)
    return filled


def _cell(value: str) -> str:
    text = csv_cell(value) if value.strip() != "EX" else value
    if any(char in text for char in ',;\t"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def write_gradebook(book: Gradebook, path: Path) -> None:
    """Write the gradebook in the format it was read in (see the module's docstring for cells)."""
    lines = (book.delimiter.join(_cell(value) for value in row) for row in book.rows)
    text = ("\ufeff" if book.bom else "") + "".join(line + book.newline for line in lines)
    try:
        write_atomic(path, text.encode("utf-8"))  # bytes: line endings as they were read
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from error


def export_canvas(
    results: list[Graded], gradebook: Path, out: Path, column: str | None, overwrite: bool = False
) -> Filled:
    """Read the gradebook, fill the column, write the import file."""
    book = read_gradebook(gradebook)
    title = results[0].record.report.title if results else ""
    filled = fill(book, results, column, title, overwrite)
    write_gradebook(book, out)
    return filled
