"""Hand grades and autograders to an LMS: ``menace export <name>``.

Each export lives in its own module here and writes files; the ``menace export``
commands that call them are in :mod:`menace_course.commands` (``export``,
``export_class``, ``export_lms``). Exports of a graded class (``canvas``, ``moodle``,
``csv``) read what ``menace grade`` wrote in OUT through :func:`read_results`, and never
grade anything themselves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from menace_course.errors import UsageError
from menace_course.grading.record import Record, Row

RESULTS_FILE = "results.jsonl"


@dataclass(frozen=True)
class Graded:
    """One student's result, as an export reads it."""

    row: Row
    record: Record  #: the full record (the ``check --format json`` report and more)


def counted(number: int, singular: str, plural: str | None = None) -> str:
    """``number`` and the noun that agrees with it, for the exports' messages.

    >>> counted(1, "student"), counted(2, "student"), counted(1, "identifier starts", "identifiers start")
    ('1 student', '2 students', '1 identifier starts')
    """
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


def read_results(out: Path) -> list[Graded]:
    """Every student's result in ``OUT/results.jsonl``, in the file's order.

    Raises:
        UsageError: OUT holds no results, or the file is not what ``menace grade`` writes.
    """
    path = out / RESULTS_FILE
    if not path.is_file():
        raise UsageError(f"{out} has no {RESULTS_FILE}: run menace grade SUBMISSIONS --out {out} first")
    results = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                record = Record.from_dict(json.loads(line))
                results.append(Graded(Row.from_record(record), record))
            except (ValueError, KeyError, TypeError) as error:
                raise UsageError(f"{path}, line {number}: not a menace grade result ({error})") from error
    return results


def feedback_file(out: Path, key: str, suffixes: tuple[str, ...] = (".html", ".md", ".txt")) -> Path | None:
    """The student's feedback file written by ``menace grade``, in the first format found."""
    for suffix in suffixes:
        path = out / "feedback" / f"{key}{suffix}"
        if path.is_file():
            return path
    return None
