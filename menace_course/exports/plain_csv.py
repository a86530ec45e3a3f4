"""``menace export csv``: one plain row per student, for a spreadsheet or any other system.

Columns: ``student``, the LMS ids known (``canvas_id``, ``moodle_id``, ...), ``score``,
``max_score``, ``percent``, ``status`` and ``reason``. The per-test columns are in
``grades.csv`` in OUT; this file is the short version to hand on. Like ``grades.csv``,
no cell can start a spreadsheet formula (:func:`~menace_course.safe_text.csv_cell`).
"""

from __future__ import annotations

import csv
from pathlib import Path

from menace_course.atomic import atomic_writer
from menace_course.errors import UsageError
from menace_course.exports import Graded
from menace_course.grading.record import number
from menace_course.grading.table import LMS_COLUMNS
from menace_course.safe_text import CSV_QUOTING, csv_row


def write_plain(results: list[Graded], path: Path) -> None:
    """Write the plain CSV (see the module's docstring)."""
    lms = [c for c in LMS_COLUMNS if any(c in r.row.lms for r in results)]
    try:
        with atomic_writer(path, newline="") as handle:
            writer = csv.writer(handle, quoting=CSV_QUOTING)
            writer.writerow(["student", *lms, "score", "max_score", "percent", "status", "reason"])
            for result in results:
                row = result.row
                percent = 100 * row.score / row.max_score if row.max_score else 0.0
                ids = [row.lms.get(c, "") for c in lms]
                scores = [number(row.score), number(row.max_score), f"{percent:.1f}"]
                writer.writerow(csv_row([row.student, *ids, *scores, row.status, row.reason]))
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from error
