"""``menace export moodle``: grades and feedback as a CSV that Moodle imports.

The file is Moodle's *grading worksheet* (``mod/assign/feedback/offline``): the columns
``Identifier``, ``Full name``, ``Grade``, ``Maximum Grade``, ``Last modified (grade)`` and
``Feedback comments``. Moodle's worksheet importer finds the columns by these English
names and needs ``Identifier``, ``Grade`` and ``Last modified (grade)``; the identifier
is ``Participant <id>``, the participant id in the folder names of Moodle's "Download all
submissions" (``Jane Doe_123456_assignsubmission_file_``).

Students whose files did not come from a Moodle download have no participant id; their
``Identifier`` is their name as graded (say a username or an e-mail address), which the
gradebook's own import (Grades → Import → CSV file) can map to ``username`` or
``useremail``, with ``Grade`` mapped to the assignment and ``Feedback comments`` to its
feedback. The command says which of the two imports fits the file it wrote.

The feedback comment is the HTML feedback ``menace grade`` wrote for the student (its
``<body>``), so students read in Moodle what the feedback files say.

Moodle reads ``Grade`` on the scale of the assignment's grade item, whose maximum is 100
unless the teacher changed it, not on the challenge's points: grades are scaled to
``max_grade`` (``--max-grade``), and ``Maximum Grade`` says so. No cell can start a
spreadsheet formula (:func:`~menace_course.safe_text.csv_cell`); an identifier that had
to be escaped cannot match a Moodle user any more, and the command names those students.
"""

from __future__ import annotations

import csv
import html
import time
from dataclasses import dataclass, field
from pathlib import Path

from menace_course.atomic import atomic_writer
from menace_course.errors import UsageError
from menace_course.exports import Graded, feedback_file
from menace_course.grading.record import number
from menace_course.safe_text import CSV_QUOTING, csv_cell, csv_row

COLUMNS = (
    "Identifier",
    "Full name",
    "Grade",
    "Maximum Grade",
    "Last modified (grade)",
    "Feedback comments",
)


#: Moodle's default maximum grade for an assignment's grade item.
DEFAULT_MAX_GRADE = 100.0


@dataclass
class Worksheet:
    """What :func:`write_worksheet` wrote."""

    students: int = 0
    without_id: int = 0  #: students without a Moodle participant id (named as graded instead)
    max_score: float = 0.0  #: the challenge's points, before scaling
    max_grade: float = DEFAULT_MAX_GRADE
    #: students whose identifier starts like a formula: written with a leading ``'``
    escaped: list[str] = field(default_factory=list)


def identifier(result: Graded) -> str:
    """``Participant <id>`` for a Moodle download, else the student's name."""
    participant = result.row.lms.get("moodle_id")
    return f"Participant {participant}" if participant else result.row.student


def comment(out: Path, key: str) -> str:
    """The student's feedback as HTML for Moodle's feedback comments ("" when there is none)."""
    path = feedback_file(out, key)
    if path is None:
        return ""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        start, end = text.find("<body>"), text.rfind("</body>")
        return text[start + len("<body>") : end].strip() if start >= 0 and end > start else text
    return f"<pre>{html.escape(text)}</pre>"


def write_worksheet(
    out: Path, results: list[Graded], path: Path, max_grade: float = DEFAULT_MAX_GRADE
) -> Worksheet:
    """Write the worksheet, grades scaled from the challenge's points to ``max_grade``."""
    modified = time.strftime("%Y-%m-%d %H:%M:%S")
    done = Worksheet(students=len(results), max_grade=max_grade)
    try:
        with atomic_writer(path, newline="") as handle:
            writer = csv.writer(handle, quoting=CSV_QUOTING)
            writer.writerow(COLUMNS)
            for result in results:
                row = result.row
                done.max_score = max(done.max_score, row.max_score)
                grade = row.score / row.max_score * max_grade if row.max_score else 0.0
                name = identifier(result)
                if csv_cell(name) != name:
                    done.escaped.append(row.student)
                cells = [name, row.student, number(grade), number(max_grade), modified, comment(out, row.key)]
                writer.writerow(csv_row(cells))
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from error
    done.without_id = sum("moodle_id" not in r.row.lms for r in results)
    return done
