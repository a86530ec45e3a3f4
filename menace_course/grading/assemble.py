"""Build OUT's files from the stored records: feedback, ``results.jsonl``, ``grades.csv``, ``report.html``.

Everything here is derived from ``OUT/.results/`` and can be rebuilt from it at any time;
each file is written whole or not at all (:mod:`~menace_course.grading.store`). Rows are
in the order of the students' names, so the same records always give the same files.
The records are read one at a time and feed the three outputs in one pass; feedback is
rendered in the grader processes, a chunk of students per task.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from menace_course.atomic import atomic_writer, write_atomic
from menace_course.feedback import TEMPLATE_FOR, Format, render
from menace_course.grading.record import Record, Row
from menace_course.grading.report import render_class_report
from menace_course.grading.stats import ClassStats, TestInfo
from menace_course.grading.store import ResultStore
from menace_course.grading.table import grades_writer, header
from menace_course.pool import GraderLost, Graders

FEEDBACK_DIR = "feedback"
#: Feedback formats and their file suffixes; text is used only when a course has neither.
FEEDBACK_FORMATS: dict[str, str] = {"markdown": ".md", "html": ".html"}
CHUNK = 25


@dataclass(frozen=True)
class Layout:
    """What the outputs need to know besides the records."""

    out: Path
    templates: Path
    title: str
    challenge: str
    lms_columns: tuple[str, ...] = ()
    has_late: bool = False
    #: The students' language for their feedback files (a catalog of :mod:`menace_course.language`).
    language: str = "en"


@dataclass
class Assembled:
    """What was written, and what could not be."""

    stats: ClassStats
    feedback_errors: list[str] = field(default_factory=list)


def feedback_formats(templates: Path) -> dict[str, str]:
    """The formats this course has templates for (markdown and HTML; else text)."""
    found = {f: s for f, s in FEEDBACK_FORMATS.items() if (templates / TEMPLATE_FOR[f]).is_file()}
    return found or {"text": ".txt"}


def render_feedback_task(task: dict[str, Any]) -> dict[str, Any]:
    """Write the feedback files of a chunk of students (runs in a grader process)."""
    out, templates, language = Path(task["out"]), Path(task["templates"]), str(task["language"])
    store = ResultStore(out)
    errors = []
    for key in task["keys"]:
        record = store.load(key)
        if record is None:
            errors.append(f"{key}: its record is missing")
            continue
        report = record.report
        for format, suffix in task["formats"].items():
            try:
                text = render(report, templates, cast(Format, format), language)
            except Exception as error:  # a broken template must be reported, not end the batch
                errors.append(f"{key}: the {format} feedback could not be rendered: {error}")
                continue
            write_atomic(out / FEEDBACK_DIR / f"{key}{suffix}", text)
    return {"errors": errors}


def write_feedback(layout: Layout, keys: Sequence[str], pool: Graders) -> list[str]:
    """Render every student's feedback in the grader processes; return what went wrong."""
    (layout.out / FEEDBACK_DIR).mkdir(parents=True, exist_ok=True)
    formats = feedback_formats(layout.templates)
    tasks = [
        {
            "out": str(layout.out),
            "templates": str(layout.templates),
            "keys": list(keys[i : i + CHUNK]),
            "formats": formats,
            "language": layout.language,
        }
        for i in range(0, len(keys), CHUNK)
    ]

    def crashed(task: dict[str, Any], lost: GraderLost) -> dict[str, Any]:
        why = lost.detail.strip()
        return {"errors": [f"{key}: its feedback could not be rendered ({why})" for key in task["keys"]]}

    errors: list[str] = []
    for result in pool.run(render_feedback_task, tasks, on_lost=crashed):
        errors.extend(result["errors"])
    return sorted(errors)


def _records(store: ResultStore, keys: Sequence[str]) -> Iterator[Record]:
    for key in keys:
        record = store.load(key)
        if record is None:  # cannot happen after a completed batch; never hide it if it does
            raise RuntimeError(f"the record of {key} vanished from {store.folder}")
        yield record


def write_tables(layout: Layout, store: ResultStore, keys: Sequence[str]) -> ClassStats:
    """``results.jsonl``, ``grades.csv`` and ``report.html``, in one pass over the records.

    The tests (columns, report rows) are those of the records themselves: every record
    of an OUT was graded with the same tests (see :mod:`~menace_course.grading.plan`).
    """
    records = _records(store, keys)
    first = next(records, None)
    tests = tuple(TestInfo(t.name, t.title) for t in first.report.tests) if first else ()
    stats = ClassStats(tests)
    columns = header([t.name for t in tests], layout.lms_columns, layout.has_late)
    with (
        atomic_writer(layout.out / "results.jsonl") as jsonl,
        grades_writer(layout.out / "grades.csv", columns) as add_row,
    ):
        for record in itertools.chain([first] if first else [], records):
            jsonl.write(json.dumps(record.to_dict(), ensure_ascii=False, sort_keys=True) + "\n")
            row = Row.from_record(record)
            add_row(row)
            stats.add(row, record)
    html = render_class_report(stats, layout.templates, layout.title, layout.challenge)
    write_atomic(layout.out / "report.html", html)
    return stats


def assemble(layout: Layout, store: ResultStore, keys: Sequence[str], pool: Graders) -> Assembled:
    """Write every output of OUT from the records of ``keys`` (in that order)."""
    errors = write_feedback(layout, keys, pool)
    return Assembled(write_tables(layout, store, keys), errors)
