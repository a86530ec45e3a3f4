"""IPython's own syntax in a notebook cell: found, and left out, as lines of IPython's.

A Jupyter cell is read by IPython before Python sees it: ``%%bash`` makes the whole cell a
shell script, ``%matplotlib inline`` and ``%timeit f(x)`` are *magics*, ``!ls`` and
``files = !ls`` run a shell command, ``f?``, ``?f`` and ``f??`` ask for help. None of that
is Python, and none of it is the student's mistake, so it must not make the notebook a
"syntax error" (nbgrader runs the notebook in IPython, where it works).

The checker runs a notebook's code as Python, without IPython. :func:`without_ipython`
finds these lines the way IPython's input transformers do (at the start of a logical line,
never inside a string, a bracket or a continued line; the help mark at the end of one) and
leaves each out: a line becomes ``pass`` at its own indentation, so the block around it
still holds, and the lines after it keep their numbers. A cell magic leaves out the whole
cell, except ``%%time`` and ``%%capture``, whose body IPython runs as Python: then only
their first line goes. Every change is returned, so the student is told what was left out.

It is only used on a cell that Python cannot read as it is: each of these forms is a
syntax error in Python, so a cell that parses is never touched (a ``%d`` at the start of a
line inside a triple-quoted string stays as it is).

IPython itself is not a dependency of this package; this is the small part of its
``inputtransformer2`` that decides what is IPython's and what is Python's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from menace_course import wording

#: Cell magics whose body IPython runs as Python, in the notebook's own namespace.
PYTHON_BODY_MAGICS = frozenset({"time", "capture"})
#: A magic's name, as safe to repeat to the student.
_NAME = re.compile(r"%{1,2}([A-Za-z_][A-Za-z0-9_]{0,40})")
#: ``target = !command`` or ``target = %magic``: IPython's SystemAssign and MagicAssign.
_ASSIGN = re.compile(r"^\s*[A-Za-z_][\w\s,.\[\]()*'\"]*?(?<![=!<>:+\-*/%&|^@])=\s*([!%])")


@dataclass(frozen=True)
class Change:
    """One thing of IPython's left out of a cell."""

    line: int  #: where it starts in the cell, from 1
    kind: str  #: ``cell magic``, ``magic``, ``shell command``, ``help`` or ``shortcut``
    name: str = ""  #: a magic's name (``bash``, ``timeit``), when it is a plain name

    def describe(self) -> str:
        """What was left out, in a few words (``the magic %timeit``)."""
        if self.kind == "magic":
            return (
                wording.IPYTHON_MAGIC % {"magic": f"%{self.name}"}
                if self.name
                else wording.IPYTHON_MAGIC_UNNAMED % {}
            )
        if self.kind == "shell command":
            return wording.IPYTHON_SHELL
        if self.kind == "help":
            return wording.IPYTHON_HELP
        return wording.IPYTHON_SHORTCUT


@dataclass(frozen=True)
class Transformed:
    """A cell with IPython's lines left out, and what was left out."""

    text: str
    changes: tuple[Change, ...] = ()
    #: a cell magic: its name, and whether its body was kept (``%%time``) or left out
    cell_magic: str | None = None
    body_kept: bool = False


def without_ipython(source: str) -> Transformed:
    """``source`` (one cell) with every line of IPython's left out; line numbers do not move."""
    lines = source.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        match = _NAME.match(lines[first].lstrip())
        name = match.group(1) if match else ""
        if name in PYTHON_BODY_MAGICS:
            lines[first] = ""
            inner = without_ipython("\n".join(lines))
            return Transformed(inner.text, inner.changes, name, body_kept=True)
        return Transformed("\n".join("" for _ in lines), (), name or "?", body_kept=False)
    changes: list[Change] = []
    for start, end, code in logical_lines(lines):
        kind = _kind(lines[start].lstrip(), code)
        if kind is None:
            continue
        match = _NAME.search(lines[start])  # the first %name: the magic, also in `x = %time f()`
        name = match.group(1) if kind == "magic" and match else ""
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        lines[start] = indent + "pass"
        for index in range(start + 1, end + 1):
            lines[index] = ""
        changes.append(Change(start + 1, kind, name))
    return Transformed("\n".join(lines), tuple(changes))


def _kind(text: str, code: str) -> str | None:
    """What of IPython's a logical line is (None: it is Python, or a plain mistake)."""
    if text.startswith("%"):
        return "magic"
    if text.startswith("!"):
        return "shell command"
    if text.startswith("?") or code.rstrip().endswith("?"):
        return "help"
    if text.startswith((",", ";", "/")):
        return "shortcut"  # IPython's autocall escapes: ,f a b  ;f a b  /f a
    assign = _ASSIGN.match(text)
    if assign is not None:
        return "magic" if assign.group(1) == "%" else "shell command"
    return None


def logical_lines(lines: list[str]) -> list[tuple[int, int, str]]:
    """Each logical line of ``lines``: its first and last physical line, and its code.

    A logical line goes on while a bracket is open, a string is open, or a line ends with
    a backslash; its code is what is left once comments are taken out (strings kept). A
    string that is never closed ends with its line, as far as this reading goes: the cell
    is not Python anyway.
    """
    found: list[tuple[int, int, str]] = []
    depth, quote, continued = 0, "", False
    start, code = 0, ""
    for number, line in enumerate(lines):
        if not quote and depth == 0 and not continued:
            start, code = number, ""
        index, kept = 0, []
        while index < len(line):
            char = line[index]
            if quote:
                if char == "\\":
                    kept.append(line[index : index + 2])
                    index += 2
                    continue
                if line.startswith(quote, index):
                    kept.append(quote)
                    index += len(quote)
                    quote = ""
                    continue
            elif char == "#":
                break
            elif char in "'\"":
                quote = char * 3 if line.startswith(char * 3, index) else char
                kept.append(quote)
                index += len(quote)
                continue
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(0, depth - 1)
            kept.append(char)
            index += 1
        text = "".join(kept)
        continued = text.endswith("\\") and not (quote and len(quote) == 3)
        if len(quote) == 1 and not continued:
            quote = ""  # a one-line string left open: Python would stop here
        code += text
        if not quote and depth == 0 and not continued:
            found.append((start, number, code))
    if quote or depth or continued:
        found.append((start, len(lines) - 1, code))
    return found
