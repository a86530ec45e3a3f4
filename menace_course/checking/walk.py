"""Walk a folder a student handed in, without trusting it: the one walk every caller shares.

Two callers look inside a student's folder: :func:`menace_course.checking.entry.entry_files`
(which file of a submission is graded, for ``menace check``, Gradescope, the service...)
and :mod:`menace_course.grading.discover` (what each student handed in to ``menace
grade``). The folder came from a student, so the walk assumes the worst of it:

* **A million names in one folder.** Names are counted as :func:`os.scandir` gives them,
  and reading stops once :data:`MAX_ENTRIES` have been counted in the whole walk (hidden
  ones and litter too: a million ``._x`` files cost as much to read as any others). A
  folder is never listed in full before its names are counted, so a huge one costs a
  bounded read, not its whole size.
* **Folders a thousand deep.** The walk keeps its own stack (``os.walk`` recurses on
  Python 3.11 and hit the recursion limit), and a folder deeper than :data:`MAX_DEPTH`
  is named (:attr:`FoundKind.TOO_DEEP`), not entered.
* **Links and special files.** Each name is looked at with ``lstat``: a link is reported
  as a link and never followed (it could lead to another student's work), and a FIFO, a
  socket or a device is reported as such, never opened (reading a FIFO blocks for ever).
  Nothing is opened or read here at all.

What it reports, in order: a folder's own names sorted by name (those it read), then the
inside of each of its sub-folders, one after the other (depth first). Hidden names and
the litter of operating systems and zip tools (:func:`is_ignored`) count against the
bound but are not reported. When the bound stops the walk, the last thing reported is
:attr:`FoundKind.TOO_MANY`, naming the folder it was reading.

The walk only says what is there; what to make of it is the caller's: which files count
(and how many, :data:`MAX_FILES`), and how to word a link or a FIFO for its readers.
Both callers word what the walk left out with :meth:`Found.left_out`, so a student sees
the same sentence whichever way they came in::

    for found in walk(folder):
        if found.kind is FoundKind.FILE:
            ...  # a regular file: found.path is where it is, found.parts its path inside folder
"""

from __future__ import annotations

import enum
import itertools
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: Names that operating systems and zip tools leave behind: never a student's work.
SYSTEM_NAMES = frozenset({"__MACOSX", "Thumbs.db", "desktop.ini", "__pycache__", ".ipynb_checkpoints"})
#: More regular files than this in one entry are not looked at (the callers count them).
MAX_FILES = 500
#: Nor more names than this, files and folders counted together (a folder of a million empty files).
MAX_ENTRIES = 5000
#: Nor folders nested deeper than this inside the entry.
MAX_DEPTH = 20
#: What the callers say when an entry holds more than :data:`MAX_FILES` regular files.
TOO_MANY_FILES = f"only the first {MAX_FILES} files were looked at"


def is_ignored(name: str) -> bool:
    """True for hidden names and the litter of operating systems and zip tools."""
    return name.startswith(".") or name in SYSTEM_NAMES


class FoundKind(enum.Enum):
    """What a name in the walked folder turned out to be (or what the walk did not do)."""

    FILE = "a regular file"
    FOLDER = "a folder, walked"
    LINK = "a link, not followed"
    SPECIAL = "a FIFO, socket or device, not opened"
    UNREADABLE = "could not be looked at (lstat failed)"
    UNLISTABLE = "a folder that could not be listed"
    TOO_DEEP = "a folder deeper than MAX_DEPTH, not entered"
    TOO_MANY = "the walk stopped at MAX_ENTRIES, in this folder"


@dataclass(frozen=True)
class Found:
    """One thing the walk found, or one place where it stopped."""

    kind: FoundKind
    path: Path  #: where it is on disk
    parts: tuple[str, ...]  #: its path inside the walked folder, as names on disk (``()``: the folder itself)
    mode: int = 0  #: its ``lstat`` mode (0 when it could not be looked at)
    error: str = ""  #: why it could not be looked at or listed (``strerror``)

    def left_out(self, shown: str) -> str:
        """The sentence for what the walk left out here (TOO_DEEP, TOO_MANY), with the folder ``shown``.

        ``shown`` is the folder's name as the caller shows it, ending in ``/``.
        """
        if self.kind is FoundKind.TOO_DEEP:
            return f"not looked into: {shown} (folders deeper than {MAX_DEPTH} levels)"
        if self.kind is FoundKind.TOO_MANY:
            return f"only the first {MAX_ENTRIES} files and folders were looked at (stopped in {shown})"
        raise ValueError(f"the walk left nothing out at {self.kind.name}")


def walk(folder: Path) -> Iterator[Found]:
    """What ``folder`` holds, at any depth, within the module's bounds (see its docstring).

    Nothing is held open between two results: each folder's names are read (at most as
    many as the bound has left) and closed before the first of them is reported.
    """
    stack: list[tuple[Path, tuple[str, ...]]] = [(folder, ())]
    left = MAX_ENTRIES
    while stack:
        here, parts = stack.pop()
        try:
            with os.scandir(here) as listing:
                # Counted as they are read: one more than is left says the folder holds too many.
                children = list(itertools.islice(listing, left + 1))
        except OSError as error:
            yield Found(FoundKind.UNLISTABLE, here, parts, error=error.strerror or str(error))
            continue
        over = len(children) > left
        children.sort(key=lambda child: child.name)
        left -= len(children)
        folders: list[tuple[Path, tuple[str, ...]]] = []
        for child in children[: len(children) - over]:
            if not is_ignored(child.name):
                found = _look(child, (*parts, child.name))
                if found.kind is FoundKind.FOLDER and len(found.parts) > MAX_DEPTH:
                    found = Found(FoundKind.TOO_DEEP, found.path, found.parts, found.mode)
                elif found.kind is FoundKind.FOLDER:
                    folders.append((found.path, found.parts))
                yield found
        if over:
            yield Found(FoundKind.TOO_MANY, here, parts)
            return
        stack.extend(reversed(folders))


def _look(child: os.DirEntry[str], parts: tuple[str, ...]) -> Found:
    """What one name is, by ``lstat`` (never through a link)."""
    path = Path(child.path)
    try:
        mode = child.stat(follow_symlinks=False).st_mode
    except OSError as error:
        return Found(FoundKind.UNREADABLE, path, parts, error=error.strerror or str(error))
    if stat.S_ISREG(mode):
        kind = FoundKind.FILE
    elif stat.S_ISDIR(mode):
        kind = FoundKind.FOLDER
    elif stat.S_ISLNK(mode):
        kind = FoundKind.LINK
    else:
        kind = FoundKind.SPECIAL
    return Found(kind, path, parts, mode)
