"""Who a top-level name in a submissions folder belongs to: plain, Canvas or Moodle.

When an instructor downloads every submission of an assignment, the LMS names each
student's files so that they can be told apart:

* **Canvas** (``lib/content_zipper.rb``): ``<sortable name>[_LATE]_<user id>_<file id>_<file name>``,
  the sortable name lower-cased with everything but letters, digits and ``_`` removed, e.g.
  ``doejane_LATE_12345_67890_after_game.py``. Text entries become ``<name>_<user id>_text.html``;
  anonymous grading uses ``anon_<anonymous id>`` in place of name and user id.
* **Moodle** (``mod/assign``, "download submissions"): a folder per student and plugin,
  ``<Full Name>_<participant id>_assignsubmission_file_`` (or ``..._onlinetext_``), or the
  same prefix before each file's name when folders are turned off.
* Anything else is **plain**: ``alice.py``, ``alice.ipynb`` or a folder ``alice/``, all of
  them the student ``alice``.

:func:`identify` says which, without touching the file system.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import PurePath

from menace_course.safe_text import printable

_CANVAS_FILE = re.compile(r"^(?P<name>[^\WA-Z]+?)(?P<late>_LATE)?_(?P<id>\d+)_\d+_(?P<original>.+)$")
_CANVAS_TEXT = re.compile(r"^(?P<name>[^\WA-Z]+?)(?P<late>_LATE)?_(?P<id>\d+)_(?P<original>text|link)\.html$")
_CANVAS_ANONYMOUS = re.compile(r"^(?P<late>LATE_)?anon_(?P<id>[A-Za-z0-9]+)_\d+_(?P<original>.+)$")
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_[a-z]+_(?P<original>.*)$")


@dataclass(frozen=True)
class Identity:
    """The student a top-level name belongs to, and the name the student gave the file."""

    lms: str  #: ``plain``, ``canvas``, ``canvas_anonymous`` or ``moodle``
    student: str  #: what the grades call the student: ``alice``, ``doejane``, ``Jane Doe``
    lms_id: str | None = None  #: Canvas user id, Canvas anonymous id or Moodle participant id
    original: str | None = None  #: the file's own name, without the LMS's prefix
    late: bool = False

    @property
    def group(self) -> tuple[str, str]:
        """Names with the same group belong to one student (e.g. two files from Canvas)."""
        return (self.lms, self.lms_id) if self.lms_id is not None else (self.lms, self.student)

    @property
    def lms_ids(self) -> dict[str, str]:
        """The LMS's ids for the student, as the grades columns name them."""
        if self.lms_id is None:
            return {}
        column = {"canvas": "canvas_id", "canvas_anonymous": "canvas_anonymous_id"}.get(self.lms, "moodle_id")
        return {column: self.lms_id}


def identify(name: str, is_folder: bool) -> Identity:
    """Whose submission the file or folder ``name`` (at the top of SUBMISSIONS) is."""
    moodle = _MOODLE.match(name)
    if moodle:
        return Identity("moodle", moodle["name"], moodle["id"], moodle["original"] or None)
    if not is_folder:
        for pattern, lms in ((_CANVAS_FILE, "canvas"), (_CANVAS_TEXT, "canvas")):
            canvas = pattern.match(name)
            if canvas:
                original = canvas["original"]
                if pattern is _CANVAS_TEXT:
                    original += ".html"
                return Identity(lms, canvas["name"], canvas["id"], original, bool(canvas["late"]))
        anonymous = _CANVAS_ANONYMOUS.match(name)
        if anonymous:
            student = f"anon_{anonymous['id']}"
            return Identity(
                "canvas_anonymous", student, anonymous["id"], anonymous["original"], bool(anonymous["late"])
            )
        return Identity("plain", PurePath(name).stem or name)
    return Identity("plain", name)


#: Characters no file name may hold on some system OUT is copied to (Windows, a zip), and
#: the control and bidirectional-override characters that would let a name disguise itself.
_UNSAFE_IN_FILE_NAMES = re.compile(r'[<>:"/\\|?*\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]')
#: Longest key, in characters (file systems allow 255 bytes; a UTF-8 character takes up to 4).
MAX_KEY = 60


def readable(name: str) -> tuple[str, str | None]:
    """A file name as the student meant it, and a note when it had to be guessed.

    ``name`` comes from :func:`os.listdir`, where bytes that are not UTF-8 become lone
    surrogates (``M\\udcfcller.py``), which no file or terminal can take. Such a name most
    likely comes from a zip made on Windows (``unzip`` keeps its Latin-1 bytes): it is read
    as Windows-1252 (``Müller.py``) and the note says so, with the name's real bytes.
    """
    raw = os.fsencode(name)
    try:
        return printable(raw.decode("utf-8")), None
    except UnicodeDecodeError:
        pass
    try:
        text, encoding = raw.decode("cp1252"), "Windows-1252"
    except UnicodeDecodeError:
        text, encoding = raw.decode("latin-1"), "Latin-1"
    shown = printable(text)
    escaped = raw.decode("ascii", "backslashreplace")
    return shown, f"the name {escaped} is not UTF-8; it is shown as {encoding}: {shown}"


def key_for(identity: Identity) -> str:
    """A name for the student's files in OUT: the ``student`` of ``grades.csv``, made safe as a file name.

    Only what a file system cannot hold is replaced (``/``, ``:``, control characters, a
    leading dot...), so ``Ivan Petrov``'s feedback is ``feedback/Ivan Petrov.md``.
    Students whose keys would be the same are told apart by
    :func:`~menace_course.grading.discover.discover`.
    """
    base = _UNSAFE_IN_FILE_NAMES.sub("_", identity.student).strip(" .")
    return base[:MAX_KEY].rstrip(" .") or "student"
