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

import re
from dataclasses import dataclass
from pathlib import PurePath

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


def key_for(identity: Identity) -> str:
    """A name for the student's files in OUT: safe on any file system, readable, stable."""
    base = re.sub(r"[^\w.-]+", "_", identity.student, flags=re.UNICODE).strip("._") or "student"
    base = base[:80]
    if identity.lms_id is not None and identity.lms != "canvas_anonymous":
        return f"{base}_{identity.lms_id}"
    return base
