"""A notebook as a submission: its code cells as one file, and the way back to its cells.

A notebook is checked as one Python file made of its code cells, in order (nbgrader's own
test and read-only cells left out, IPython magics and shell lines commented out). Two things
keep that honest to what the student sees in Jupyter:

* **Cells, not joined lines.** :class:`Cells` remembers where each cell starts, so that
  every line in a report (a syntax error, a traceback) is named as the student sees it:
  ``cell 3, line 2``, cells counted from 1 at the top of the notebook, markdown cells too.
* **A cell that stops does not stop the notebook.** In Jupyter, a cell that raises stops
  at that line, and the cells after it still run. A notebook is full of exploratory cells
  (``after_game(beads, 4, 'win')`` with ``beads`` defined in a cell since deleted), so a
  ``NameError`` there must not zero a correct function. When loading raises in a
  top-level statement, :func:`leave_out_failing_statement` blanks out that statement and
  the rest of its cell (what Jupyter would not have run either) and the notebook is loaded
  again, with a note that says what happened and how to see it in Jupyter. A ``.py`` file
  keeps Python's rule: an error while importing it stops everything.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, replace

from menace_course.models import Detail, Line, LoadProblem, SubmissionReport, TestResult
from menace_course.sandbox.outcomes import LoadOutcome

#: An exception's type name as Python writes it; anything else is not repeated in a note.
_TYPE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,80}$")
#: A message plain enough to repeat in a note (NameError's ``name 'beads' is not defined``).
_PLAIN_MESSAGE = re.compile(r"^[A-Za-z0-9_ '\",.:()\-]{1,120}$")


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


def notebook_code(text: str) -> tuple[str, Cells]:
    """The code cells of a notebook as one file, and where each cell is in it.

    Raises:
        ValueError: the text is not a notebook (not JSON, or no list of cells).
    """
    try:
        notebook = json.loads(text)
    except ValueError as error:
        raise ValueError("it is not valid JSON") from error
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise ValueError("it has no cells")
    chunks: list[str] = []
    spans: list[tuple[int, int, int]] = []
    line = 1
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code" or _is_nbgrader_test(cell):
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        lines = [("# " + ln) if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines()]
        chunks.append("\n".join(lines))
        last = line + max(1, len(lines)) - 1
        spans.append((line, last, number))
        line = last + 2  # one blank line between cells
    return "\n\n".join(chunks) + "\n", Cells(tuple(spans))


def _is_nbgrader_test(cell: dict[str, object]) -> bool:
    """nbgrader's test and read-only cells are the instructor's, not the student's answer."""
    metadata = cell.get("metadata")
    marks = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    if not isinstance(marks, dict) or marks.get("solution"):
        return False
    return bool(marks.get("grade") or marks.get("locked"))


# -- a cell that stops while the notebook loads ------------------------------------------------


@dataclass(frozen=True)
class LeftOut:
    """The notebook's code with one failing statement (and the rest of its cell) blanked out."""

    text: str
    note: str  #: what happened, for the student, naming the cell


def leave_out_failing_statement(text: str, cells: Cells | None, load: LoadOutcome) -> LeftOut | None:
    """Blank out the top-level statement that raised while loading, and the rest of its cell.

    Line numbers do not move (the lines become empty), so the cells stay where they were.
    None for a ``.py`` file (``cells`` None), or when loading did not raise in a top-level
    statement of a cell (then the error is reported as for any file).
    """
    exception = load.exception
    if cells is None or load.status != "raised" or exception is None:
        return None
    top = next((f for f in exception.frames if f.function == "<module>"), None)
    where = cells.locate(top.line) if top is not None else None
    span = cells.span_of(top.line) if top is not None else None
    if top is None or where is None or span is None:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    statement = next((s for s in tree.body if _first_line(s) <= top.line <= (s.end_lineno or 0)), None)
    if statement is None:
        return None
    lines = text.split("\n")
    first, last = _first_line(statement), span[1]
    if not any(lines[first - 1 : last]):
        return None  # nothing left to leave out: do not go round again
    kept = [*lines[: first - 1], *([""] * (last - first + 1)), *lines[last:]]
    cell, line = where
    return LeftOut("\n".join(kept), _note(cell, line, exception.type_name, exception.message))


def _first_line(statement: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _note(cell: int, line: int, type_name: str, message: str) -> str:
    error = type_name if _TYPE_NAME.match(type_name) else "an error"
    if error != "an error" and _PLAIN_MESSAGE.match(message):
        error += f" ({message})"
    return (
        f"cell {cell}, line {line} stopped with {error} when the checker ran the cells from the top; "
        "the rest of that cell was left out, and the other cells were checked."
    )


#: Said once, after the notes on cells left out: why Jupyter did not show the error.
RUN_ALL_ADVICE = (
    "Jupyter keeps what earlier runs defined, in whatever order the cells were run. "
    "Kernel → Restart & Run All runs every cell once, in order, as the checker does, and shows "
    "these errors where they happen."
)


def with_note(notices: tuple[str, ...], note: str) -> tuple[str, ...]:
    """The notices with ``note`` added, and :data:`RUN_ALL_ADVICE` once, at the end."""
    return (*(n for n in notices if n != RUN_ALL_ADVICE), note, RUN_ALL_ADVICE)


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
