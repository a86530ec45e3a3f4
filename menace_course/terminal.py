"""Print rendered feedback to a terminal: colour where it is a terminal, plain text elsewhere.

No wording is made here. Lines that start with a verdict mark (``✓``, ``✗``, ``–``) are
coloured; every other line, including all student-made text, is printed as it is, with
rich's markup and highlighting turned off so nothing in it can style itself. Before
anything is printed, every control character in the text (an escape sequence that would
clear the screen or paint a fake green verdict, a carriage return that would overwrite a
line) is shown as a visible escape (:func:`~menace_course.safe_text.for_terminal`), whatever
the feedback templates did.
"""

from __future__ import annotations

import sys
from typing import TextIO

from menace_course.safe_text import for_terminal

ASCII_MARKS = {"✓": ":)", "✗": ":(", "–": ":|", "·": "-", "…": "...", "→": "->", "★": "*"}
_STYLES = {"✓": "green", "✗": "bold red", "–": "dim"}


def _can_encode(stream: TextIO, text: str) -> bool:
    try:
        text.encode(stream.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def to_ascii(text: str) -> str:
    """Replace the marks with check50-style ASCII for terminals that cannot show them."""
    for mark, plain in ASCII_MARKS.items():
        text = text.replace(mark, plain)
    return text


def print_feedback(text: str, stream: TextIO | None = None, ascii_only: bool = False) -> None:
    """Print feedback text, coloured when ``stream`` is a terminal."""
    stream = stream or sys.stdout
    text = for_terminal(text)
    if ascii_only or not _can_encode(stream, "✓✗–·…→★"):
        text = to_ascii(text)
    if not stream.isatty():
        stream.write(text if text.endswith("\n") else text + "\n")
        return
    from rich.console import Console  # only a terminal needs it
    from rich.text import Text

    console = Console(file=stream, highlight=False, markup=False, emoji=False, soft_wrap=True)
    for line in text.rstrip("\n").split("\n"):
        # Only our own verdict lines, at the margin or indented by two, are coloured;
        # anything a student's code printed is indented further and stays plain.
        stripped = line[2:] if line.startswith("  ") else line
        style = next((s for mark, s in _STYLES.items() if stripped.startswith(mark)), None)
        console.print(Text(line, style=style or ""))
