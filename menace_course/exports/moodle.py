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
"""

from __future__ import annotations

import csv
import html
import time
from pathlib import Path

from menace_course.errors import UsageError
from menace_course.exports import Graded, feedback_file
from menace_course.grading.record import number
from menace_course.grading.store import atomic_writer

COLUMNS = (
    "Identifier",
    "Full name",
    "Grade",
    "Maximum Grade",
    "Last modified (grade)",
    "Feedback comments",
)


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


def write_worksheet(out: Path, results: list[Graded], path: Path) -> int:
    """Write the worksheet; return how many students have no Moodle participant id."""
    modified = time.strftime("%Y-%m-%d %H:%M:%S")
    try:
        with atomic_writer(path, newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            for result in results:
                row = result.row
                writer.writerow(
                    [
                        identifier(result),
                        row.student,
                        number(row.score),
                        number(row.max_score),
                        modified,
                        comment(out, row.key),
                    ]
                )
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from error
    return sum("moodle_id" not in r.row.lms for r in results)
