"""Read a student's file (``.py`` or ``.ipynb``) into source text, safely and without running it.

Everything here is done by reading and parsing only: the file's size is capped, its
encoding is worked out (UTF-8, a BOM, a coding line, or Windows' usual encodings, with a
notice), a notebook's code cells are joined (:mod:`~menace_course.checking.notebook`, which
also keeps where each cell starts), and :func:`ast.parse` finds syntax errors and the names
the file defines. Nothing of the student's runs in this process.
"""

from __future__ import annotations

import ast
import io
import os
import stat
import tokenize
from dataclasses import dataclass, replace
from pathlib import Path

from menace_course import wording
from menace_course.errors import UsageError
from menace_course.language import gettext as _
from menace_course.models import Detail, Line, LoadProblem, Problem, Status

TYPE_CHECKING = False  # (the notebook reader loads only for a notebook: a .py check never pays for it)
if TYPE_CHECKING:
    from menace_course.checking.notebook import Cells

MAX_BYTES = 512 * 1024
#: The file name the parser is given. Never the student's: on a syntax error CPython reads
#: the line to show from the file of that name, relative to the grader's folder, so a
#: submission uploaded as ``secrets.toml`` would be shown that file's lines, one per line
#: number it puts its error on (the shown line is taken from the submission's own text,
#: :func:`source_line`, whatever the parser read).
PARSED_AS = "<submission>"


@dataclass(frozen=True)
class Source:
    """A submission as text, or the reason it could not be read."""

    path: Path
    text: str
    status: Status  #: CHECKED when it parsed; otherwise why not
    problem: LoadProblem | None = None
    defined: frozenset[str] = frozenset()
    notices: tuple[str, ...] = ()
    cells: Cells | None = None  #: a notebook's cells (where each is in ``text``); None for a .py file


def read_submission(path: Path) -> Source:
    """Read and parse ``path``.

    Raises:
        UsageError: the path does not exist or is a folder (the user's mistake, exit 2).
    """
    if not path.exists():
        raise UsageError(_("no such file: %(path)s") % {"path": path})
    if path.is_dir():
        raise UsageError(_("%(path)s is a folder; give the file with your function in it") % {"path": path})
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer that never comes.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        return _unreadable(path, wording.UNREADABLE_OPEN % {"why": error.strerror})
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return _unreadable(path, wording.UNREADABLE_NOT_REGULAR)
        try:
            raw = handle.read(MAX_BYTES + 1)
        except OSError as error:
            return _unreadable(path, wording.UNREADABLE_READ % {"why": error.strerror})
    return decode_submission(path, raw)


def read_bytes(filename: str, data: bytes) -> Source:
    """Read a submission given as its file name and its bytes (an upload, say).

    Only the last part of ``filename`` is kept (``../x/after_game.py`` is ``after_game.py``);
    its suffix decides whether the bytes are a notebook.
    """
    name = Path(filename.replace("\\", "/")).name or "submission.py"
    return decode_submission(Path(name), data[: MAX_BYTES + 1])


def decode_submission(path: Path, raw: bytes) -> Source:
    """Decode and parse a submission's bytes; ``path`` names it (and says if it is a notebook)."""
    if len(raw) > MAX_BYTES:
        return _unreadable(path, wording.UNREADABLE_TOO_BIG % {"kb": MAX_BYTES // 1024})
    text, notices = _decode(raw)
    if text is None:
        return _unreadable(path, wording.UNREADABLE_BINARY)
    if path.suffix.lower() == ".ipynb":
        from menace_course.checking.notebook import notebook_code

        try:
            book = notebook_code(text)
        except ValueError as error:
            return _unreadable(path, wording.UNREADABLE_NOTEBOOK % {"error": error})
        return _parse_cells(path, book.text, book.cells, (*notices, *book.notices))
    return _parse(path, text, notices)


def _unreadable(path: Path, message: str) -> Source:
    return Source(path, "", Status.UNREADABLE, LoadProblem(message))


def _decode(raw: bytes) -> tuple[str | None, tuple[str, ...]]:
    if b"\x00" in raw and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, ()
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), (wording.READ_AS_UTF16,)
        except UnicodeDecodeError:
            return None, ()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return raw.decode(encoding).removeprefix("\ufeff"), ()
    except (SyntaxError, UnicodeDecodeError, LookupError):
        pass
    text = raw.decode("cp1252", errors="replace")
    return text, (wording.READ_AS_CP1252,)


def _parse_cells(path: Path, text: str, cells: Cells, notices: tuple[str, ...]) -> Source:
    """A notebook's code, parsed cell by cell (as Jupyter runs it); a syntax error names its line."""
    defined: set[str] = set()
    for (first, _end, _stop), cell in zip(cells.spans, cells.cell_texts(text), strict=True):
        try:
            tree = ast.parse(cell, filename=PARSED_AS)
        except SyntaxError as error:
            if error.lineno is not None:
                error.lineno += first - 1  # the joined code's line: named by cell in the report
            return replace(_syntax_error(path, text, notices, error), cells=cells)
        except (ValueError, RecursionError, MemoryError) as error:  # null bytes, absurd nesting
            return Source(
                path, text, Status.UNREADABLE, LoadProblem(wording.UNREADABLE_PYTHON % {"error": error})
            )
        defined |= _defined_names(tree)
    return Source(path, text, Status.CHECKED, defined=frozenset(defined), notices=notices, cells=cells)


def _syntax_error(path: Path, text: str, notices: tuple[str, ...], error: SyntaxError) -> Source:
    line = Line(
        line=error.lineno or 0,
        function="<module>",
        code=source_line(text, error.lineno or 0)[:200],
        column=error.offset or 0,
    )
    detail = Detail(
        # SyntaxError, or its kinds IndentationError and TabError, which have advice of their own
        problem=Problem.SYNTAX,
        error_type=type(error).__name__,
        error_message=error.msg,
        traceback=(line,),
    )
    problem = LoadProblem(wording.LOAD_UNREADABLE % {"file": path.name}, detail)
    return Source(path, text, Status.SYNTAX_ERROR, problem, notices=notices)


def source_line(text: str, number: int) -> str:
    """Line ``number`` (from 1) of ``text`` as the parser counts lines ("" when there is none).

    The parser ends a line at ``\\n``, ``\\r\\n`` or a lone ``\\r``, and nowhere else (not at
    the form feeds and other separators that :meth:`str.splitlines` also splits at).

    >>> source_line("x = 1\\r\\ndef f(a)\\n", 2)
    'def f(a)'
    >>> source_line("x = 1", 7)
    ''
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[number - 1] if 1 <= number <= len(lines) else ""


def _parse(path: Path, text: str, notices: tuple[str, ...]) -> Source:
    try:
        tree = ast.parse(text, filename=PARSED_AS)
    except SyntaxError as error:
        return _syntax_error(path, text, notices, error)
    except (ValueError, RecursionError, MemoryError) as error:  # null bytes, absurd nesting
        return Source(
            path, text, Status.UNREADABLE, LoadProblem(wording.UNREADABLE_PYTHON % {"error": error})
        )
    return Source(path, text, Status.CHECKED, defined=frozenset(_defined_names(tree)), notices=notices)


def _defined_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def calls_by_function(text: str) -> dict[str, set[str]]:
    """For each top-level function, the plain names it calls (used to tell helpers apart)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    calls: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            calls[node.name] = {
                n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            }
    return calls
