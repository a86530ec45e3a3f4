"""A notebook as a submission: its code cells as one file, and the way back to its cells.

A notebook is checked as one Python file made of its code cells, in order (nbgrader's own
test and read-only cells left out), and run cell by cell. Three things keep that honest to
what the student sees in Jupyter:

* **Cells, not joined lines.** :class:`Cells` remembers where each cell starts, so that
  every line in a report (a syntax error, a traceback) is named as the student sees it:
  ``cell 3, line 2``, cells counted from 1 at the top of the notebook, markdown cells too.
* **A cell that stops does not stop the notebook.** In Jupyter, a cell that raises stops
  at that line, and the cells after it still run. A notebook is full of exploratory cells
  (``after_game(beads, 4, 'win')`` with ``beads`` defined in a cell since deleted), so a
  ``NameError`` there must not zero a correct function. The sandboxed child is given the
  cells (:attr:`Cells.code_spans`) and runs each on its own, once, in one load: a cell that
  raises is left there (the rest of it does not run) and the next cell runs. The load is
  the one a ``.py`` file gets, with the same limits, however many cells fail;
  :func:`cell_notes` says which cells stopped and how to see it in Jupyter. A ``.py``
  file keeps Python's rule: an error while importing it stops everything.
* **IPython's lines are IPython's.** ``%%bash`` cells, ``%matplotlib inline``,
  ``files = !ls`` and ``after_game?`` are left out, with a notice naming each
  (:mod:`~menace_course.checking.ipython`), never a syntax error.

A file that is not a notebook (not JSON, nested absurdly deep, cells that are not cells,
a source that is not text) is refused with a reason: :func:`notebook_code` raises
``ValueError``, which the loader turns into ``unreadable``.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, replace

from menace_course import wording
from menace_course.checking.ipython import Transformed, without_ipython
from menace_course.models import Detail, Line, LoadProblem, SubmissionReport, TestResult
from menace_course.sandbox.outcomes import CellError

#: An exception's type name as Python writes it; anything else is not repeated in a note.
_TYPE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,80}$")
#: A message plain enough to repeat in a note (NameError's ``name 'beads' is not defined``).
_PLAIN_MESSAGE = re.compile(r"^[A-Za-z0-9_ '\",.:()\-]{1,120}$")
#: Notes about cells (stopped, or IPython's lines left out) beyond this many are counted, not listed.
MAX_NOTES = 10


@dataclass(frozen=True)
class Cells:
    """Where each code cell of a notebook lies in the joined code."""

    #: (first line, last line, cell number) of each code cell in the joined code, in order
    spans: tuple[tuple[int, int, int], ...]

    def locate(self, line: int) -> tuple[int, int] | None:
        """The cell holding joined ``line``, and the line within that cell (both from 1)."""
        for first, last, cell in self.spans:
            if first <= line <= last:
                return cell, line - first + 1
        return None

    def span_of(self, line: int) -> tuple[int, int] | None:
        """The first and last joined lines of the cell holding ``line``."""
        for first, last, _ in self.spans:
            if first <= line <= last:
                return first, last
        return None

    @property
    def code_spans(self) -> tuple[tuple[int, int], ...]:
        """The first and last joined line of each code cell: what the child runs one by one."""
        return tuple((first, last) for first, last, _ in self.spans)

    def cell_texts(self, text: str) -> list[str]:
        """The code of each code cell, in order, cut out of the joined ``text`` (split once)."""
        lines = text.split("\n")
        return ["\n".join(lines[first - 1 : last]) for first, last, _ in self.spans]


@dataclass(frozen=True)
class NotebookCode:
    """A notebook's code cells joined into one file, where each is, and what was said about them."""

    text: str
    cells: Cells
    notices: tuple[str, ...] = ()  #: IPython's lines left out, by cell and line


def notebook_code(text: str) -> NotebookCode:
    """The code cells of a notebook as one file, and where each cell is in it.

    Raises:
        ValueError: the text is not a notebook, with why, in words for the student.
    """
    chunks: list[str] = []
    spans: list[tuple[int, int, int]] = []
    notices: list[str] = []
    line = 1
    for number, source in _code_cells(text):
        lines = _lines(_as_python(number, source, notices))
        chunks.append("\n".join(lines))
        last = line + max(1, len(lines)) - 1
        spans.append((line, last, number))
        line = last + 2  # one blank line between cells
    code = "\n\n".join(chunks) + "\n"
    try:
        code.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(wording.NOTEBOOK_SURROGATES) from None
    return NotebookCode(code, Cells(tuple(spans)), _capped(notices))


def _code_cells(text: str) -> list[tuple[int, str]]:
    """Each code cell that is the student's, as (cell number from 1, its source).

    Raises:
        ValueError: the notebook is malformed (what Jupyter would refuse to open).
    """
    try:
        notebook = json.loads(text)
    except RecursionError:
        raise ValueError(wording.NOTEBOOK_TOO_DEEP) from None
    except ValueError as error:
        raise ValueError(wording.NOTEBOOK_NOT_JSON) from error
    if not isinstance(notebook, dict):
        raise ValueError(wording.NOTEBOOK_NOT_A_NOTEBOOK)
    if "worksheets" in notebook and "cells" not in notebook:
        raise ValueError(wording.NOTEBOOK_OLD)
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise ValueError(wording.NOTEBOOK_NO_CELLS)
    found: list[tuple[int, str]] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise ValueError(wording.NOTEBOOK_NOT_A_CELL % {"cell": number})
        kind = cell.get("cell_type")
        if not isinstance(kind, str):
            raise ValueError(wording.NOTEBOOK_NO_KIND % {"cell": number})
        if "source" not in cell:
            raise ValueError(wording.NOTEBOOK_NO_SOURCE % {"cell": number})
        source = cell["source"]
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise ValueError(wording.NOTEBOOK_SOURCE_NOT_TEXT % {"cell": number})
        if kind == "code" and not _is_nbgrader_test(cell):
            found.append((number, source))
    return found


def _lines(source: str) -> list[str]:
    """A cell's lines as Python splits them (``\\n``, ``\\r\\n`` or ``\\r``; nothing else)."""
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[:-1] if len(lines) > 1 and lines[-1] == "" else lines


def _as_python(number: int, source: str, notices: list[str]) -> str:
    """A cell as Python will run it: itself when it parses, else without IPython's lines."""
    source = "\n".join(_lines(source))
    try:
        ast.parse(source)
        return source
    except SyntaxError:
        pass
    except (ValueError, RecursionError, MemoryError):
        return source  # null bytes, absurd nesting: the loader says so
    changed = without_ipython(source)
    if changed.cell_magic is None and not changed.changes:
        return source  # a plain syntax error: the student's, reported as one
    notices.extend(_ipython_notes(number, changed))
    return changed.text


def _ipython_notes(number: int, changed: Transformed) -> list[str]:
    notes = []
    if changed.cell_magic is not None and changed.body_kept:
        notes.append(wording.IPYTHON_CELL_KEPT % {"cell": number, "magic": f"%%{changed.cell_magic}"})
    elif changed.cell_magic is not None and changed.cell_magic != "?":
        notes.append(wording.IPYTHON_CELL_NAMED % {"cell": number, "magic": f"%%{changed.cell_magic}"})
    elif changed.cell_magic is not None:
        notes.append(wording.IPYTHON_CELL_UNNAMED % {"cell": number})
    for change in changed.changes:
        notes.append(wording.IPYTHON_LINE % {"cell": number, "line": change.line, "what": change.describe()})
    return notes


def _capped(notes: list[str]) -> tuple[str, ...]:
    if len(notes) <= MAX_NOTES:
        return tuple(notes)
    return (*notes[:MAX_NOTES], wording.IPYTHON_MORE % {"more": len(notes) - MAX_NOTES})


def _is_nbgrader_test(cell: dict[str, object]) -> bool:
    """nbgrader's test and read-only cells are the instructor's, not the student's answer."""
    metadata = cell.get("metadata")
    marks = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    if not isinstance(marks, dict) or marks.get("solution"):
        return False
    return bool(marks.get("grade") or marks.get("locked"))


# -- cells that stopped while the notebook ran ---------------------------------------------------


def cell_notes(cells: Cells, errors: tuple[CellError, ...], failed: int) -> tuple[str, ...]:
    """A note for each cell that stopped with an error while the child ran the cells.

    ``errors`` come from the child (student output: the cell index is checked, the type
    name and message are repeated only when they look like Python's own); ``failed`` is how
    many cells stopped in all, of which the first few are described.
    """
    notes: list[str] = []
    for error in errors:
        if not 0 <= error.cell < len(cells.spans):
            continue
        first, last, number = cells.spans[error.cell]
        top = next(
            (f for f in error.exception.frames if f.function == "<module>" and first <= f.line <= last), None
        )
        line = top.line - first + 1 if top is not None else None
        notes.append(_note(number, line, error.exception.type_name, error.exception.message))
    shown = notes[:MAX_NOTES]
    more = max(failed, len(notes)) - len(shown)
    if more > 0:
        shown.append(wording.CELLS_MORE % {"more": more})
    return tuple(shown)


def _note(cell: int, line: int | None, type_name: str, message: str) -> str:
    where = (
        wording.CELL_LINE_AT % {"cell": cell, "line": line}
        if line is not None
        else wording.CELL_AT % {"cell": cell}
    )
    if not _TYPE_NAME.match(type_name):
        return wording.CELL_STOPPED_UNKNOWN % {"where": where}
    error = f"{type_name} ({message})" if _PLAIN_MESSAGE.match(message) else type_name
    return wording.CELL_STOPPED % {"where": where, "error": error}


#: Said once, after the notes on cells left out: why Jupyter did not show the error.
RUN_ALL_ADVICE = wording.RUN_ALL_ADVICE


def with_notes(notices: tuple[str, ...], notes: tuple[str, ...]) -> tuple[str, ...]:
    """The notices with ``notes`` added, and :data:`RUN_ALL_ADVICE` once, at the end."""
    if not notes:
        return notices
    return (*(n for n in notices if n != RUN_ALL_ADVICE), *notes, RUN_ALL_ADVICE)


# -- naming lines by their cell ------------------------------------------------------------------


def in_cells(report: SubmissionReport, cells: Cells) -> SubmissionReport:
    """The report with every line of the student's code named by its cell and line in it."""

    def line(old: Line) -> Line:
        where = cells.locate(old.line)
        return old if where is None else replace(old, cell=where[0], line=where[1])

    def detail(old: Detail | None) -> Detail | None:
        if old is None or not old.traceback:
            return old
        return replace(old, traceback=tuple(line(x) for x in old.traceback))

    def test(old: TestResult) -> TestResult:
        if old.detail is None or not old.detail.traceback:
            return old
        return replace(old, detail=detail(old.detail))

    problem: LoadProblem | None = report.load_problem
    if problem is not None and problem.detail is not None:
        problem = replace(problem, detail=detail(problem.detail))
    return replace(report, load_problem=problem, tests=tuple(test(t) for t in report.tests))
