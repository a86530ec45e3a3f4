"""Find the students in a submissions folder: exactly one :class:`Entry` per student.

Every real entry at the top of SUBMISSIONS belongs to some student (see
:mod:`~menace_course.grading.names`), and every student gets an entry, even when there is
nothing to grade: an empty folder, a folder with no ``.py`` or ``.ipynb`` file, a file that
is not a regular file. Then the entry carries an
:class:`~menace_course.checking.entry.EntryProblem` saying why (the type ``menace check``
uses too). Only the litter of operating systems and zip tools is left out (hidden files,
``__MACOSX``, ``Thumbs.db``, ...), and :class:`Discovery` names it, so nothing is dropped unseen.

A student's folder is looked into by the walk every entry point shares
(:mod:`menace_course.checking.walk`: bounded, never through a link), and when a student
handed in several Python files, the one graded is chosen by the rule every entry point
shares (:mod:`menace_course.checking.entry`): what defines the challenge's function first,
then the name; the entry's ``notes`` say which was chosen and what was not.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote_from_bytes, unquote_to_bytes

from menace_course.checking.entry import PYTHON_SUFFIXES, Candidate, EntryProblem, choose_file, cut_short
from menace_course.checking.walk import MAX_FILES, TOO_MANY_FILES, FoundKind, is_ignored, walk
from menace_course.errors import UsageError
from menace_course.grading.names import Identity, identify, key_for, readable

#: Bytes of one file hashed to notice that it changed (a graded file is far smaller).
MAX_BYTES_HASHED = 64 * 1024 * 1024


@dataclass(frozen=True)
class Entry:
    """One student's submission as found on disk."""

    student: str
    key: str  #: unique within the batch; names the student's files in OUT
    source: str  #: what was found in SUBMISSIONS, e.g. ``alice/`` or ``alice.py, alice.ipynb``
    file: Path | None  #: the file to grade, relative to SUBMISSIONS (None when there is a problem)
    display_name: str | None = None  #: the file's name as the student gave it
    problem: EntryProblem | None = None
    notes: tuple[str, ...] = ()
    lms: dict[str, str] = field(default_factory=dict)
    late: bool = False
    digest: str = ""  #: a hash of every file of the entry: a changed submission is graded again
    file_sha256: str | None = None  #: sha256 of the graded file (as ``sha256sum`` prints it)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a worker process and for the ``grading`` block of a record.

        Every string in it is printable text; the real path of a file whose name is not
        (see :func:`entry_path`) travels as ``file_raw``.
        """
        shown = _shown_path(self.file) if self.file else None
        raw = {}
        if self.file is not None and shown != self.file.as_posix():
            raw["file_raw"] = quote_from_bytes(os.fsencode(self.file))
        return {
            "student": self.student,
            "key": self.key,
            "source": self.source,
            "file": shown,
            **raw,
            "display_name": self.display_name,
            "problem": {"status": self.problem.code, "message": self.problem.message}
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
    names: list[str] = field(default_factory=list)  #: top-level names, as shown
    files: list[tuple[Path, str]] = field(default_factory=list)  #: (real path, name shown)
    notes: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  #: what the walk's bounds kept from being looked at
    late: bool = False  #: the LMS marked some file of the group late


def discover(root: Path, function: str, slug: str) -> Discovery:
    """One entry per student in ``root``, choosing the file that answers ``function``.

    Nothing is ever read through a link, and only regular files are opened (a FIFO or a
    device would block or never end): anything else is named in the entry's notes.

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
            ignored.append(readable(name)[0])
            continue
        _add(groups, root, name)
    entries = [_entry(group, root, function, slug) for group in groups.values()]
    return Discovery(tuple(_note_shared_files(_unique_keys(entries), root)), tuple(ignored))


def _kind(mode: int) -> str | None:
    """What a file that is neither a regular file nor a folder is, in words (None for those two)."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a link"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _link_note(path: Path, root: Path, shown: str, own: str | None = None) -> str:
    """Why a link was not followed, and where it leads (found without reading anything through it).

    ``own`` is the top-level name of the entry the link is in, when it is inside a folder.
    """
    target = Path(os.path.realpath(path))
    base = Path(os.path.realpath(root))
    if target != base and target.is_relative_to(base):
        first = target.relative_to(base).parts[0]
        where = "inside the same entry" if first == own else f"to {readable(first)[0]}, another entry"
    else:
        where = "to a place outside the submissions folder"
    return f"{shown} is a link ({where}); links are never followed"


def _add(groups: dict[tuple[str, str], _Group], root: Path, name: str) -> None:
    path = root / name
    shown, name_note = readable(name)
    problem: str | None = None
    try:
        mode = os.lstat(path).st_mode
    except OSError as error:
        mode = 0
        problem = f"{shown} could not be read ({error.strerror})"
    is_folder = stat.S_ISDIR(mode)
    identity = identify(shown, is_folder)
    group = groups.setdefault(identity.group, _Group(identity))
    group.late = group.late or identity.late
    group.names.append(shown + ("/" if is_folder else ""))
    if name_note:
        group.notes.append(name_note)
    if problem is not None:
        group.unreadable.append(problem)
    elif stat.S_ISLNK(mode):
        group.unreadable.append(_link_note(path, root, shown))
    elif is_folder:
        _walk(group, path, root)
    elif stat.S_ISREG(mode):
        group.files.append((path, identity.original or shown))
    else:
        group.unreadable.append(f"{shown} is {_kind(mode)}, not a regular file or folder")


def _walk(group: _Group, folder: Path, root: Path) -> None:
    """Add every regular file under ``folder``; links and special files are named, never opened.

    The walk is :func:`~menace_course.checking.walk.walk`'s, bounded as every entry point's.
    """
    top = readable(folder.name)[0] + "/"
    for found in walk(folder):
        names = [readable(part) for part in found.parts]
        shown = "/".join(name for name, _ in names)  # inside the student's folder
        if found.kind is FoundKind.UNLISTABLE:
            group.unreadable.append(f"{top}{shown and shown + '/'} could not be read ({found.error})")
            continue
        if found.kind is FoundKind.TOO_MANY:
            group.left_out.append(found.left_out(f"{shown}/" if shown else top))
            group.notes.append(group.left_out[-1])
            return
        if names[-1][1]:  # the name is not UTF-8, or holds control characters
            group.notes.append(names[-1][1])
        if found.kind is FoundKind.FILE:
            if len(group.files) >= MAX_FILES:
                group.left_out.append(TOO_MANY_FILES)
                group.notes.append(TOO_MANY_FILES)
                return
            group.files.append((found.path, shown))
        elif found.kind is FoundKind.TOO_DEEP:
            group.left_out.append(found.left_out(f"{shown}/"))
            group.notes.append(group.left_out[-1])
        elif found.kind is FoundKind.LINK:
            group.unreadable.append(_link_note(found.path, root, top + shown, folder.name))
        elif found.kind is FoundKind.SPECIAL:
            group.unreadable.append(f"{top}{shown} is {_kind(found.mode)}, not a regular file")
        elif found.kind is FoundKind.UNREADABLE:
            group.unreadable.append(f"{top}{shown} could not be read ({found.error})")


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
    choice_notes.extend(f"not graded: {why}" for why in group.unreadable)
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


def _problem(group: _Group, candidates: list[tuple[Path, str]], others: list[str]) -> EntryProblem | None:
    if candidates:
        return None
    if group.left_out:  # the file to grade may be where the walk did not look: never "nothing"
        return cut_short([*group.left_out, *group.unreadable])
    if group.unreadable:
        return EntryProblem("unreadable", "; ".join(group.unreadable))
    if not others:
        where = " and ".join(group.names)
        return EntryProblem("empty", f"{where} holds no files: nothing was handed in to grade")
    return EntryProblem("no_python_file", f"no .py or .ipynb file was handed in (found: {', '.join(others)})")


def _choose(
    candidates: list[tuple[Path, str]], function: str, slug: str
) -> tuple[tuple[Path, str] | None, list[str], EntryProblem | None]:
    """The one rule of :func:`menace_course.checking.entry.choose_file`, used by every entry point."""
    choice = choose_file([Candidate(path, shown) for path, shown in candidates], function, slug)
    chosen = (choice.file.path, choice.file.shown) if choice.file else None
    problem = choice.problem
    return chosen, list(choice.notes), problem


def _file_sha256(path: Path) -> str:
    """The file's sha256, read without following a link or waiting on anything but a regular file."""
    flags = (
        os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    )
    digest = hashlib.sha256()
    try:
        fd = os.open(path, flags)
    except OSError as error:
        return f"unreadable: {error.strerror}"
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # swapped for something else since it was listed
            return "unreadable: not a regular file"
        try:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
                if handle.tell() >= MAX_BYTES_HASHED:
                    return f"{digest.hexdigest()} (of the first {MAX_BYTES_HASHED} bytes of {info.st_size})"
        except OSError as error:
            return f"unreadable: {error.strerror}"
    return digest.hexdigest()


def _digest(hashes: dict[Path, str]) -> str:
    """One hash for every file of an entry: their names (as bytes) and contents, in a stable order."""
    lines = sorted(os.fsencode(path.name) + b"\0" + sha.encode() for path, sha in hashes.items())
    return hashlib.sha256(b"\n".join(lines)).hexdigest()


def _shown_path(path: Path) -> str:
    return "/".join(readable(part)[0] for part in path.parts)


def entry_path(entry: dict[str, Any], root: Path) -> Path:
    """The real path of the file an entry (as :meth:`Entry.to_dict` gives it) asks to grade.

    A name that is not UTF-8, or holds control characters, is shown otherwise than it is
    on disk; ``file_raw`` then keeps its real bytes, percent-encoded.
    """
    raw = entry.get("file_raw")
    if raw:
        return root / os.fsdecode(unquote_to_bytes(str(raw)))
    return root / str(entry["file"])


def _unique_keys(entries: list[Entry]) -> list[Entry]:
    """Give each entry its own key, even where file systems ignore case (``Bob`` and ``bob``).

    A student whose name is safe as a file name, and no one else's, keeps it as the key:
    feedback files are named as the ``student`` column says. The others are told apart
    by their LMS id (``Jane Doe (4242)``) or a number (``bob (2)``), the first that is
    nobody's name.
    """
    natural = Counter(e.key.casefold() for e in entries)
    taken = {e.key.casefold() for e in entries if e.key == e.student and natural[e.key.casefold()] == 1}
    reserved = set(natural)
    unique = []
    for entry in sorted(entries, key=lambda e: (e.key.casefold(), e.key != e.student, e.key, e.source)):
        key = entry.key
        if key.casefold() in taken and not (key == entry.student and natural[key.casefold()] == 1):
            ids = list(entry.lms.values())
            candidates = [f"{key} ({ids[0]})"] if ids else []
            candidates += (f"{key} ({n})" for n in range(2, len(entries) + 3))
            key = next(c for c in candidates if c.casefold() not in taken | reserved)
        taken.add(key.casefold())
        unique.append(replace(entry, key=key) if key != entry.key else entry)
    return unique


def _note_shared_files(entries: list[Entry], root: Path) -> list[Entry]:
    """Say so when two entries' graded files are one file on disk (a hard link): check them by hand."""
    owners: dict[tuple[int, int], list[Entry]] = defaultdict(list)
    for entry in entries:
        if entry.file is not None:
            try:
                info = os.stat(root / entry.file, follow_symlinks=False)
            except OSError:
                continue
            if info.st_nlink > 1:
                owners[(info.st_dev, info.st_ino)].append(entry)
    notes: dict[str, list[str]] = defaultdict(list)
    for sharing in owners.values():
        for entry in sharing:
            others = ", ".join(f"{o.student} ({o.display_name})" for o in sharing if o is not entry)
            if others:
                notes[entry.key].append(
                    f"needs review: the graded file is one file on disk (a hard link) with that of {others}"
                )
    return [replace(e, notes=(*e.notes, *notes[e.key])) if e.key in notes else e for e in entries]
