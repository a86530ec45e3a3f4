"""A gradebook CSV exported from Canvas, read so that it can be written back unchanged but for one column.

The format, as Canvas's importer reads it (``lib/gradebook_importer.rb``):

* the header row's first two cells contain ``Student`` and ``ID``; the student columns
  (``SIS User ID``, ``SIS Login ID``, ``Integration ID``, ``Root Account``) end with
  ``Section``; the assignment columns after it are named ``Title (id)``;
* ``Current Score``, ``Final Points``, ``Unposted ...``, ``Override ...`` are read-only totals;
* a row whose first cell contains ``Points Possible`` gives each column's points (or
  ``(read only)``); rows holding only ``Muted`` or ``Manual Posting`` are notes, not students;
* the delimiter is ``,`` or ``;``; the file may start with a UTF-8 byte-order mark.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from menace_course.errors import UsageError

TITLE_AND_ID = re.compile(r"^(?P<title>.*?)\s*\((?P<id>\d+)\)\s*$")
READ_ONLY = re.compile(r"^(Unposted )?(Current|Final|Override) (Score|Points|Grade|Status)\b")


@dataclass
class Gradebook:
    """The rows of a Canvas gradebook and how the file was written."""

    rows: list[list[str]]
    delimiter: str = ","
    newline: str = "\n"
    bom: bool = False
    points_row: int | None = None
    student_rows: list[int] = field(default_factory=list)

    @property
    def header(self) -> list[str]:
        """The header row."""
        return self.rows[0]

    def cell(self, row: list[str], column: str) -> str:
        """The value of a named column in ``row`` ("" when the column or cell is absent)."""
        if column not in self.header:
            return ""
        i = self.header.index(column)
        return row[i] if i < len(row) else ""

    def set_cell(self, row_index: int, column: int, value: str) -> None:
        """Set one cell, padding a short row."""
        row = self.rows[row_index]
        row.extend([""] * (column + 1 - len(row)))
        row[column] = value

    def assignments(self) -> list[tuple[int, str, str]]:
        """(column, title, id) of each assignment column that can be imported."""
        start = self.header.index("Section") + 1
        found = []
        for i, name in enumerate(self.header[start:], start=start):
            match = TITLE_AND_ID.match(name)
            if match and not READ_ONLY.match(name):
                found.append((i, match["title"], match["id"]))
        return found

    def assignment_column(self, requested: str | None, title: str) -> tuple[int, bool]:
        """The column to fill, and whether it is new (see :func:`read_gradebook`).

        Raises:
            UsageError: no column fits, or several do and none was named.
        """
        columns = self.assignments()
        listed = "; ".join(self.header[i] for i, _, _ in columns) or "none"
        if requested is None:
            fits = [i for i, name, _ in columns if title and title.casefold() in name.casefold()]
            if len(fits) == 1:
                return fits[0], False
            raise UsageError(
                'name the assignment\'s column with --column "Title (id)"; '
                f"the gradebook's assignments: {listed}"
            )
        if requested in self.header:
            return self.header.index(requested), False
        match = TITLE_AND_ID.match(requested)
        wanted_id = match["id"] if match else requested if requested.isdigit() else None
        if wanted_id is not None:
            by_id = [i for i, _, id_ in columns if id_ == wanted_id]
            if by_id:
                return by_id[0], False
            raise UsageError(f"no assignment in the gradebook has the id {wanted_id}; it has: {listed}")
        by_title = [i for i, name, _ in columns if name.casefold() == requested.casefold()]
        if len(by_title) == 1:
            return by_title[0], False
        self.header.append(requested)  # Canvas creates a new assignment for a column without an id
        return len(self.header) - 1, True

    def points_possible(self, column: int) -> float | None:
        """The column's points possible, when the file gives a number."""
        if self.points_row is None:
            return None
        row = self.rows[self.points_row]
        try:
            return float(row[column].replace(",", ".")) if column < len(row) else None
        except ValueError:
            return None

    def set_points_possible(self, column: int, points: float) -> None:
        """Write the points possible of a column (for a new one)."""
        if self.points_row is not None:
            self.set_cell(self.points_row, column, f"{points:g}")


def read_gradebook(path: Path) -> Gradebook:
    """Read a gradebook CSV exported from Canvas (Grades → Export → Export Entire Gradebook).

    Raises:
        UsageError: the file cannot be read or is not a Canvas gradebook.
    """
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise UsageError(f"{path} is not a UTF-8 text file, as Canvas exports them") from error
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if first_line.count(";") > first_line.count(",") else ","
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    header = rows[0] if rows else []
    if len(header) < 2 or "Student" not in header[0] or "ID" not in header[1] or "Section" not in header:
        raise UsageError(
            f"{path} is not a gradebook exported from Canvas: its first row must begin with Student, ID "
            "and have a Section column (in Canvas: Grades → Export → Export Entire Gradebook)"
        )
    header[0] = header[0].lstrip("\ufeff")
    book = Gradebook(rows, delimiter, "\r\n" if "\r\n" in text else "\n", raw.startswith(b"\xef\xbb\xbf"))
    for i, row in enumerate(rows[1:], start=1):
        first = row[0].strip() if row else ""
        if "Points Possible" in first:
            book.points_row = i
        elif book.cell(row, "ID").strip():  # "Muted" and "Manual Posting" rows have no ID
            book.student_rows.append(i)
    return book
