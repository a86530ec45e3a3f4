"""Find the students in a submissions folder: exactly one :class:`Entry` per student.

Every real entry at the top of SUBMISSIONS belongs to some student (see
:mod:`~menace_course.grading.names`), and every student gets an entry, even when there is
nothing to grade: an empty folder, a folder with no ``.py`` or ``.ipynb`` file, a file that
is not a regular file. Then the entry carries a :class:`Problem` saying why. Only the
litter of operating systems and zip tools is left out (hidden files, ``__MACOSX``,
``Thumbs.db``, ...), and :class:`Discovery` names it, so nothing is dropped unseen.

When a student handed in several Python files, the one graded is chosen by the rule every
entry point shares (:mod:`menace_course.checking.entry`): what defines the challenge's
function first, then the name; the entry's ``notes`` say which was chosen and what was not.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from menace_course.checking.entry import Candidate, choose_file
from menace_course.errors import UsageError
from menace_course.grading.names import Identity, identify, key_for

PYTHON_SUFFIXES = (".py", ".ipynb")
#: Names that operating systems and zip tools leave behind: never a student's work.
SYSTEM_NAMES = frozenset({"__MACOSX", "Thumbs.db", "desktop.ini", "__pycache__", ".ipynb_checkpoints"})
#: More files than this in one student's folder are not looked at (and the notes say so).
MAX_FILES_PER_STUDENT = 500


@dataclass(frozen=True)
class Problem:
    """Why a student's entry has nothing that can be graded."""

    status: str  #: ``empty``, ``no_python_file``, ``no_function`` or ``unreadable``
    message: str  #: one plain sentence, shown to the instructor and in the student's feedback


@dataclass(frozen=True)
class Entry:
    """One student's submission as found on disk."""

    student: str
    key: str  #: unique within the batch; names the student's files in OUT
    source: str  #: what was found in SUBMISSIONS, e.g. ``alice/`` or ``alice.py, alice.ipynb``
    file: Path | None  #: the file to grade, relative to SUBMISSIONS (None when there is a problem)
    display_name: str | None = None  #: the file's name as the student gave it
    problem: Problem | None = None
    notes: tuple[str, ...] = ()
    lms: dict[str, str] = field(default_factory=dict)
    late: bool = False
    digest: str = ""  #: a hash of every file of the entry: a changed submission is graded again
    file_sha256: str | None = None  #: sha256 of the graded file (as ``sha256sum`` prints it)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a worker process and for the ``grading`` block of a record."""
        return {
            "student": self.student,
            "key": self.key,
            "source": self.source,
            "file": self.file.as_posix() if self.file else None,
            "display_name": self.display_name,
            "problem": {"status": self.problem.status, "message": self.problem.message}
            if self.problem
            else None,
            "notes": list(self.notes),
            "lms": dict(self.lms),
            "late": self.late,
            "digest": self.digest,
            "file_sha256": self.file_sha256,
        }


@dataclass(frozen=True)
class Discovery:
    """Everything found at the top of SUBMISSIONS."""

    entries: tuple[Entry, ...]
    ignored: tuple[str, ...]  #: system and hidden names left out


@dataclass
class _Group:
    identity: Identity
    names: list[str] = field(default_factory=list)  #: top-level names, as found
    files: list[tuple[Path, str]] = field(default_factory=list)  #: (path, name shown)
    notes: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    late: bool = False  #: the LMS marked some file of the group late


def is_ignored(name: str) -> bool:
    """True for hidden files and the litter of operating systems and zip tools."""
    return name.startswith(".") or name in SYSTEM_NAMES


def discover(root: Path, function: str, slug: str) -> Discovery:
    """One entry per student in ``root``, choosing the file that answers ``function``.

    Raises:
        UsageError: ``root`` cannot be listed.
    """
    try:
        names = sorted(os.listdir(root))
    except OSError as error:
        raise UsageError(f"cannot list {root}: {error.strerror}") from error
    groups: dict[tuple[str, str], _Group] = {}
    ignored = []
    for name in names:
        if is_ignored(name):
            ignored.append(name)
            continue
        _add(groups, root, name)
    entries = [_entry(group, root, function, slug) for group in groups.values()]
    return Discovery(tuple(_unique_keys(entries)), tuple(ignored))


def _add(groups: dict[tuple[str, str], _Group], root: Path, name: str) -> None:
    path = root / name
    identity = identify(name, path.is_dir())
    group = groups.setdefault(identity.group, _Group(identity))
    group.late = group.late or identity.late
    group.names.append(name + ("/" if path.is_dir() else ""))
    if not _inside(path, root):
        group.unreadable.append(f"{name} is a link to a place outside the submissions folder")
    elif path.is_dir():
        _walk(group, path, root)
    elif path.is_file():
        group.files.append((path, identity.original or name))
    else:
        group.unreadable.append(f"{name} is not a regular file or folder")


def _inside(path: Path, root: Path) -> bool:
    return not path.is_symlink() or path.resolve().is_relative_to(root.resolve())


def _walk(group: _Group, folder: Path, root: Path) -> None:
    def refuse(error: OSError) -> None:
        group.unreadable.append(f"{Path(error.filename).name} could not be read ({error.strerror})")

    for here, dirs, files in os.walk(folder, onerror=refuse):
        dirs[:] = sorted(d for d in dirs if not is_ignored(d))
        for name in sorted(files):
            path = Path(here, name)
            shown = path.relative_to(folder).as_posix()
            if is_ignored(name):
                continue
            if not _inside(path, root):
                group.notes.append(f"not graded: {shown} (a link to outside the submissions folder)")
            elif len(group.files) >= MAX_FILES_PER_STUDENT:
                group.notes.append(f"only the first {MAX_FILES_PER_STUDENT} files were looked at")
                return
            else:
                group.files.append((path, shown))


def _entry(group: _Group, root: Path, function: str, slug: str) -> Entry:
    identity = group.identity
    hashes = {path: _file_sha256(path) for path, _ in group.files}
    common: dict[str, Any] = {
        "student": identity.student,
        "key": key_for(identity),
        "source": ", ".join(group.names),
        "lms": identity.lms_ids,
        "late": group.late,
        "digest": _digest(hashes),
    }
    notes = list(group.notes)
    if group.late:
        notes.append("the LMS marks this submission late")
    candidates = [(p, shown) for p, shown in group.files if p.suffix.lower() in PYTHON_SUFFIXES]
    others = [shown for p, shown in group.files if p.suffix.lower() not in PYTHON_SUFFIXES]
    problem = _problem(group, candidates, others)
    if problem is not None:
        return Entry(file=None, problem=problem, notes=tuple(notes), **common)
    chosen, choice_notes, problem = _choose(candidates, function, slug)
    choice_notes.extend(group.unreadable)
    if others:
        choice_notes.append(f"not graded (not .py or .ipynb): {', '.join(others)}")
    return Entry(
        file=chosen[0].relative_to(root) if chosen else None,
        file_sha256=hashes[chosen[0]] if chosen else None,
        display_name=chosen[1] if chosen else None,
        problem=problem,
        notes=tuple(notes + choice_notes),
        **common,
    )


def _problem(group: _Group, candidates: list[tuple[Path, str]], others: list[str]) -> Problem | None:
    if candidates:
        return None
    if group.unreadable:
        return Problem("unreadable", "; ".join(group.unreadable))
    if not others:
        where = " and ".join(group.names)
        return Problem("empty", f"{where} holds no files: nothing was handed in to grade")
    return Problem("no_python_file", f"no .py or .ipynb file was handed in (found: {', '.join(others)})")


def _choose(
    candidates: list[tuple[Path, str]], function: str, slug: str
) -> tuple[tuple[Path, str] | None, list[str], Problem | None]:
    """The one rule of :func:`menace_course.checking.entry.choose_file`, used by every entry point."""
    choice = choose_file([Candidate(path, shown) for path, shown in candidates], function, slug)
    chosen = (choice.file.path, choice.file.shown) if choice.file else None
    problem = Problem(choice.problem.code, choice.problem.message) if choice.problem else None
    return chosen, list(choice.notes), problem


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError as error:
        return f"unreadable: {error.strerror}"
    return digest.hexdigest()


def _digest(hashes: dict[Path, str]) -> str:
    """One hash for every file of an entry: their names and contents, in a stable order."""
    lines = sorted(f"{path.name}\0{sha}" for path, sha in hashes.items())
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _unique_keys(entries: list[Entry]) -> list[Entry]:
    """Give each entry its own key (two students may reduce to the same safe name)."""
    seen: dict[str, int] = defaultdict(int)
    unique = []
    for entry in sorted(entries, key=lambda e: (e.key.casefold(), e.source)):
        seen[entry.key.casefold()] += 1
        count = seen[entry.key.casefold()]
        if count > 1:
            entry = replace(entry, key=f"{entry.key}-{count}")
        unique.append(entry)
    return unique
