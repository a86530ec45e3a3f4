"""``grades.csv``: one row per student, for a spreadsheet or an LMS import.

Columns: ``student``, ``score``, ``max_score``, ``status`` (``passed``, ``failed`` or why
nothing ran, see :mod:`~menace_course.grading.record`), ``reason``, ``file`` (what was
graded), the LMS's ids when the submissions came from Canvas or Moodle (``canvas_id``,
``moodle_id``, ...), ``late`` when the LMS marked any submission late, then one column per
test, in the suite's order, holding the points the student earned on it. Timings are
left out on purpose: grading the same files twice gives the same file, byte for byte.

Students name their own files, so a name may start like a spreadsheet formula
(``=HYPERLINK(...).py``): every cell is written as :func:`~menace_course.safe_text.csv_cell`
makes it, quoted, so a spreadsheet shows it and never runs it.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from menace_course.atomic import atomic_writer
from menace_course.grading.record import Row, number
from menace_course.safe_text import CSV_QUOTING, csv_row

FIXED_COLUMNS = ("student", "score", "max_score", "status", "reason", "file")
#: The order LMS id columns appear in, when present.
LMS_COLUMNS = ("canvas_id", "canvas_anonymous_id", "moodle_id")


def header(tests: Sequence[str], lms_columns: Sequence[str], has_late: bool) -> list[str]:
    """The header row of ``grades.csv``."""
    lms = [c for c in LMS_COLUMNS if c in lms_columns]
    return [*FIXED_COLUMNS, *lms, *(["late"] if has_late else []), *tests]


def cells(row: Row, columns: Sequence[str]) -> list[str]:
    """One student's row under ``columns``."""
    values: dict[str, Any] = {
        "student": row.student,
        "score": number(row.score),
        "max_score": number(row.max_score),
        "status": row.status,
        "reason": row.reason,
        "file": row.file or "",
        "late": "yes" if row.late else "",
        **row.lms,
        **{t.name: number(t.points) for t in row.tests},
    }
    return [str(values.get(column, "")) for column in columns]


@contextmanager
def grades_writer(path: Path, columns: Sequence[str]) -> Iterator[Callable[[Row], object]]:
    """Write ``grades.csv`` row by row; the file appears whole when the block ends."""
    with atomic_writer(path, newline="") as handle:
        writer = csv.writer(handle, quoting=CSV_QUOTING)
        writer.writerow(csv_row(list(columns)))
        yield lambda row: writer.writerow(csv_row(list(cells(row, columns))))
