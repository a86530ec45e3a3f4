"""Which file of a submission is graded: one rule for every way a submission comes in.

A submission (an *entry*) is a file or a folder. ``menace check``, ``menace grade``, the
Gradescope autograder, ``menace validate``, the hidden tests' ``--submission`` and the
check service all decide with :func:`pick_file` (``menace grade``, which groups a
student's top-level files itself, calls :func:`choose_file` with them), so the same
folder is graded the same way everywhere.

The rule:

* **A file** is graded as it is (a ``.ipynb`` as a notebook, anything else as Python).
* **A folder**: its ``.py`` and ``.ipynb`` files at any depth (:func:`entry_files`), leaving
  out hidden names (``.git``, ``._after_game.py``), the litter of operating systems and zip
  tools (``__MACOSX``, ``__pycache__``, ``.ipynb_checkpoints``, ``Thumbs.db``), links, and
  anything that is not a regular file. Of those, the first that applies:

  1. the only one;
  2. the only one that **defines the challenge's function** (a top-level ``def``; a file
     Python cannot parse counts when one of its lines starts ``def <function>(``);
  3. of those that define it (of all, when none does), the one **named after the
     function or the challenge** (``after_game.py``; Canvas renames a second upload
     ``after_game-1.py``), a ``.py`` before an ``.ipynb``, the shallowest first;
  4. the first by path of those that define it;
  5. none: the entry has a problem (``no_function``), and nothing is graded.

  A folder in which no ``.py`` or ``.ipynb`` file was found before the walk's bounds
  stopped it (too many names, too many files, too deep) is ``unreadable``, with a message
  naming the bound (:func:`cut_short`): the file to grade may be in the part not looked
  at, so it is never said to be ``empty`` or to hold no Python file.

  What the function defines decides before the name does: a folder with ``after_game.py``
  (notes) and ``solution.py`` (the answer) is graded on ``solution.py``. Whenever there
  was a choice, a note says which file was graded, why, and what else was handed in.

Files are only read and parsed here, never run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from menace_course.checking.loader import read_submission
from menace_course.checking.walk import MAX_FILES, TOO_MANY_FILES, FoundKind, walk
from menace_course.errors import UsageError
from menace_course.models import EntryProblemCode

#: The suffixes of files that can be graded.
PYTHON_SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class EntryProblem:
    """Why an entry has nothing that can be graded."""

    code: EntryProblemCode
    message: str  #: one plain sentence, for the student and the instructor


@dataclass(frozen=True)
class Candidate:
    """A file of an entry that could be the one graded."""

    path: Path  #: where to read it
    shown: str  #: its name as the student knows it (relative to the entry)


@dataclass(frozen=True)
class Choice:
    """The file to grade (or the problem that leaves none), and what to say about the choice."""

    file: Candidate | None
    notes: tuple[str, ...] = ()
    problem: EntryProblem | None = None


@dataclass(frozen=True)
class Listing:
    """The candidate files of a folder, and notes on what was left out and why."""

    files: tuple[Candidate, ...]
    others: tuple[str, ...]  #: regular files that are not .py or .ipynb
    notes: tuple[str, ...]
    #: what the walk's bounds kept from being looked at (each sentence is in ``notes`` too)
    left_out: tuple[str, ...] = ()


def entry_files(folder: Path) -> Listing:
    """The ``.py`` and ``.ipynb`` files in ``folder``, at any depth, each folder's in order of name.

    The walk is :func:`~menace_course.checking.walk.walk`'s: bounded (at most
    :data:`~menace_course.checking.walk.MAX_ENTRIES` names read, however many a folder
    holds, and :data:`~menace_course.checking.walk.MAX_DEPTH` levels), never through a
    link, nothing opened. Of what it finds, only regular files count (a FIFO would block a
    reader for ever), at most :data:`~menace_course.checking.walk.MAX_FILES` of them; the
    rest is named in the notes.
    """
    files: list[Candidate] = []
    others: list[str] = []
    notes: list[str] = []
    left_out: list[str] = []
    for found in walk(folder):
        shown = "/".join(found.parts)
        if found.kind is FoundKind.FILE:
            if len(files) + len(others) >= MAX_FILES:
                notes.append(TOO_MANY_FILES)
                left_out.append(TOO_MANY_FILES)
                break
            if found.path.name.lower().endswith(PYTHON_SUFFIXES):
                files.append(Candidate(found.path, shown))
            else:
                others.append(shown)
        elif found.kind is FoundKind.LINK:
            slash = "/" if found.path.is_dir() else ""  # is_dir() looks through the link, reads nothing
            notes.append(f"not graded: {shown}{slash} (a link)")
        elif found.kind is FoundKind.SPECIAL:
            notes.append(f"not graded: {shown} (not a regular file)")
        elif found.kind is FoundKind.UNREADABLE:
            notes.append(f"not graded: {shown} (cannot be read: {found.error})")
        elif found.kind is FoundKind.UNLISTABLE:
            notes.append(f"{shown or folder.name}/ could not be read ({found.error})")
        elif found.kind is not FoundKind.FOLDER:
            notes.append(found.left_out(f"{shown or folder.name}/"))
            left_out.append(notes[-1])
    return Listing(tuple(files), tuple(others), tuple(notes), tuple(left_out))


def cut_short(reasons: Sequence[str]) -> EntryProblem:
    """The problem of a folder with no ``.py`` or ``.ipynb`` file found before the walk's bounds stopped it.

    The student handed in something, maybe the very file to grade, in the part the walk
    did not look at: that is neither ``empty`` nor ``no_python_file``. ``reasons`` are the
    walk's sentences for what it left out (and anything else not graded), which name the
    bound; the message ends with what the student can do about it.
    """
    return EntryProblem(
        "unreadable",
        "no .py or .ipynb file was found in the part of the folder that was looked at: "
        f"{'; '.join(reasons)}; hand in the .py or .ipynb file on its own",
    )


def defines(path: Path, function: str) -> bool:
    """True when the file defines ``function`` at its top level (see the module's rule 2)."""
    try:
        source = read_submission(path)
    except UsageError:
        return False
    pattern = rf"^\s*(async\s+)?def\s+{re.escape(function)}\s*\("
    return function in source.defined or re.search(pattern, source.text, re.MULTILINE) is not None


def _stem(name: str) -> str:
    # Canvas renames a file handed in again as "after_game-1.py".
    return re.sub(r"-\d+$", "", Path(name).stem)


def choose_file(candidates: Sequence[Candidate], function: str, slug: str) -> Choice:
    """Apply the module's rule to the ``.py`` and ``.ipynb`` files of one entry.

    ``candidates`` are in the order of their paths; an empty list is the caller's to
    explain (it knows whether the entry was empty or held other files).
    """
    if len(candidates) == 1:
        return Choice(candidates[0])
    if not candidates:
        return Choice(None, problem=EntryProblem("no_python_file", "no .py or .ipynb file was handed in"))
    defining = [c for c in candidates if defines(c.path, function)]
    pool = defining or list(candidates)
    named = sorted(
        (c for c in pool if _stem(c.shown) in (function, slug)),
        key=lambda c: (c.path.suffix.lower() != ".py", c.shown.count("/")),
    )
    if len(defining) == 1:
        chosen, why = defining[0], f"the only one that defines {function}"
    elif named:
        chosen, why = named[0], f"its name matches {function}"
        if not defining:
            why += f" (none of them defines {function})"
    elif defining:
        chosen, why = defining[0], f"the first by name of those that define {function}"
    else:
        shown = ", ".join(c.shown for c in candidates)
        message = f"none of the files handed in defines {function}: {shown}"
        return Choice(None, problem=EntryProblem("no_function", message))
    others = ", ".join(c.shown for c in candidates if c is not chosen)
    return Choice(chosen, (f"graded {chosen.shown} ({why}); also handed in: {others}",))


def pick_file(entry: Path, function: str, slug: str) -> Choice:
    """The file to grade in ``entry`` (a file or a folder), by the module's rule.

    Raises:
        UsageError: ``entry`` does not exist.
    """
    if not entry.exists() and not entry.is_symlink():
        raise UsageError(f"no such file or folder: {entry}")
    if not entry.is_dir():
        return Choice(Candidate(entry, entry.name))
    listing = entry_files(entry)
    if not listing.files:
        if listing.left_out:
            problem = cut_short(listing.notes)
        elif listing.others:
            found = ", ".join(listing.others[:10])
            message = f"no .py or .ipynb file was handed in (found: {found})"
            problem = EntryProblem("no_python_file", message)
        elif listing.notes:
            problem = EntryProblem("unreadable", "; ".join(listing.notes))
        else:
            problem = EntryProblem("empty", f"{entry.name}/ holds no files: nothing was handed in to grade")
        return Choice(None, listing.notes, problem)
    choice = choose_file(listing.files, function, slug)
    notes = list(choice.notes) + list(listing.notes)
    if listing.others and choice.file is not None:
        notes.append(f"not graded (not .py or .ipynb): {', '.join(listing.others[:10])}")
    return Choice(choice.file, tuple(notes), choice.problem)
