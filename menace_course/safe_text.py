"""Make text that a student controls safe for each place a person reads it.

A student controls far more text than their code: what it prints, the ``repr`` of what
it returns (any object's ``__repr__``), exception type and function names (any string,
through ``type()`` or ``code.replace``), file and folder names (any bytes but ``/``).
Each place that shows such text gets its own escape, here, and nothing else:

* everywhere: :func:`printable` shows control characters (``ESC[2J`` clears a terminal),
  bidirectional overrides (which turn text around) and lone surrogates (which no file can
  hold) as visible escapes; :func:`cap` also shortens it;
* a terminal: :func:`for_terminal`, the last step before feedback is printed;
* a CSV cell a spreadsheet may open: :func:`csv_cell`, as OWASP's "CSV Injection" page and
  ASVS 1.2.10 ask (a leading ``=``, ``+``, ``-``, ``@``, tab or carriage return is
  prefixed with ``'``), with every cell quoted (:data:`CSV_QUOTING`) so that a ``;``
  inside a cell cannot start a new one in a spreadsheet that splits on ``;``;
* markdown (feedback files and Gradescope's ``output``): :func:`md_text` for running
  text, :func:`md_code` for a code span, :func:`md_fence` for a code block whose fence no
  line inside can close. Raw HTML, headings, emphasis and links never come from a student.

HTML needs nothing here: every HTML template is rendered with autoescaping.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

#: Longest piece of student-made text shown (Exercism's 500-character rule).
STUDENT_TEXT_CAP = 500
#: Characters never shown as they are: C0 and C1 controls, bidirectional marks and
#: overrides, and lone surrogates (what ``os.listdir`` makes of bytes that are not UTF-8).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
#: The same, but keeping line breaks and tabs (for what a program printed).
_CONTROL_BUT_LINES = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_TRUNCATED = re.compile(r"\n?… \(truncated, \d+ more characters\)$")
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Room for the note that says how much was cut.
_NOTE_ROOM = 60


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` on one line, every control character shown as an escape (``\\x1b``, ``\\n``)."""
    return _CONTROL.sub(_escape, text)


def printable_block(text: str) -> str:
    """Like :func:`printable`, but line breaks and tabs stay (a carriage return does not)."""
    return _CONTROL_BUT_LINES.sub(_escape, text.replace("\r\n", "\n"))


def _already_capped(text: str, limit: int) -> bool:
    return len(text) <= limit + _NOTE_ROOM and _TRUNCATED.search(text) is not None


def cap(text: str | None, limit: int = STUDENT_TEXT_CAP) -> str:
    """Student-made text made printable and at most ``limit`` characters (plus a note that says so).

    Capping text that this function already capped leaves it as it is.
    """
    if not text:
        return ""
    text = printable(text)
    if len(text) > limit and not _already_capped(text, limit):
        text = text[:limit] + f" … (truncated, {len(text) - limit} more characters)"
    return text


def cap_block(text: str | None, limit: int = STUDENT_TEXT_CAP) -> str:
    """Like :func:`cap`, but keeps line breaks (for what a student's code printed)."""
    if not text:
        return ""
    if len(text) <= limit or _already_capped(text, limit):
        return printable_block(text)
    return printable_block(text[:limit]) + f"\n… (truncated, {len(text) - limit} more characters)"


def for_terminal(text: str) -> str:
    """Text to print: nothing in it can move the cursor, clear the screen or change colours."""
    return printable_block(text).replace("\t", "    ")


# -- CSV ----------------------------------------------------------------------------------

#: Quote every cell: a ``;`` or tab inside a cell then never starts a new one, whatever
#: separator the spreadsheet guesses. (``csv.QUOTE_ALL``, written out: the feedback a student
#: reads needs this module but not :mod:`csv`; a test keeps the two equal.)
CSV_QUOTING: Literal[1] = 1
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\0")
_NUMBER = re.compile(r"^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$")


def csv_cell(value: object) -> str:
    """One CSV cell that a spreadsheet shows as text, never runs as a formula.

    A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a line break gets a leading
    ``'`` (OWASP; ASVS 1.2.10). Numbers (``-1``, ``7.5``) and a lone ``-`` (Canvas's "no
    score") are left as they are: no spreadsheet runs them.
    """
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_START) and text != "-" and not _NUMBER.match(text):
        return "'" + text
    return text


def csv_row(values: Sequence[object]) -> list[str]:
    """:func:`csv_cell` on every cell of a row."""
    return [csv_cell(value) for value in values]


# -- markdown -----------------------------------------------------------------------------

#: Punctuation that means something to markdown (CommonMark, GitHub's, Gradescope's)
#: wherever it stands: emphasis, code, links, HTML and entities, tables, strikethrough.
_MD_ANYWHERE = re.compile(r"([\\`*_\[\]<>&|~])")
#: What means something only at the start of a line: headings, quotes, lists, rules.
_MD_LINE_START = re.compile(r"^(\s*)([#>+\-=]|\d+(?=[.)]))")
#: Bare links that GitHub-style markdown turns into links by itself.
_MD_BARE_LINK = re.compile(r"(?i)(www)\.|:(//)")


def md_text(text: str | None, limit: int = STUDENT_TEXT_CAP) -> str:
    """Student-made text inside running markdown: shown literally, never as markup, HTML or a link."""
    shown = _MD_ANYWHERE.sub(r"\\\1", cap(text, limit))
    shown = _MD_LINE_START.sub(lambda m: m[1] + "\\" + m[2] if not m[2].isdigit() else m[0], shown)
    shown = re.sub(r"^(\s*\d+)([.)])", r"\1\\\2", shown)
    return _MD_BARE_LINK.sub(lambda m: f"{m[1]}\\." if m[1] else r":\/\/", shown)


def md_code(text: str | None, limit: int = STUDENT_TEXT_CAP) -> str:
    """Student-made text as one markdown code span, however many backticks it holds."""
    shown = cap(text, limit)
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    return f"{ticks}{pad}{shown}{pad}{ticks}"


def md_fence(text: str, info: str = "text") -> str:
    """``text`` as a fenced code block that no line of it can close.

    The fence is one backtick longer than the longest run of backticks inside (CommonMark
    closes a fence only with one at least as long), and every control character is shown
    as an escape; inside, markdown and HTML are shown as they are, never run.
    """
    body = printable_block(text).strip("\n")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"
