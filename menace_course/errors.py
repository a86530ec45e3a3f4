"""Errors in the tooling, the command line or the course content, never in a student's code.

A student's mistake is data (a failed test in a report); our mistake, or a user's bad
input to the tool, is one of these exceptions. Each carries the exit code the ``menace``
command ends with, and a message that says what to do. They are caught once, in
:func:`menace_course.cli.main`, and printed without a traceback::

    MenaceError                 exit 1
    ├── UsageError              exit 2  bad arguments, a missing or unreadable file
    │   └── UnknownChallenge    exit 2  no challenge by that name (suggests close ones)
    ├── CourseError             exit 2  no course found, or a challenge that is broken
    └── SandboxUnavailable      exit 2  the sandbox asked for cannot run here
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar


class MenaceError(Exception):
    """Base class for errors the ``menace`` command reports in one line, without a traceback."""

    #: The process exit code ``menace`` ends with.
    exit_code: ClassVar[int] = 1


class UsageError(MenaceError):
    """The command was given something it cannot work with: fix the argument and run again."""

    exit_code: ClassVar[int] = 2


class UnknownChallenge(UsageError):
    """No challenge has this slug. The message lists the close matches, if any."""

    def __init__(self, slug: str, known: Iterable[str]) -> None:
        """Build the message, with a "did you mean" for near misses."""
        known = sorted(known)
        import difflib  # only when a name needs a suggestion: off every start path

        from menace_course.language import gettext as _

        close = difflib.get_close_matches(slug, known, n=3, cutoff=0.5)
        if close:
            message = _("no challenge named %(slug)r; did you mean %(close)s?") % {
                "slug": slug,
                "close": _(" or ").join(repr(c) for c in close),
            }
        elif known:
            message = _("no challenge named %(slug)r; the challenges are: %(known)s") % {
                "slug": slug,
                "known": ", ".join(known),
            }
        else:
            message = _("no challenge named %(slug)r") % {"slug": slug}
        super().__init__(message)
        self.slug = slug
        self.suggestions = close


class CourseError(MenaceError):
    """The course folder is missing or one of its challenges is malformed: the message says where."""

    exit_code: ClassVar[int] = 2


class SandboxUnavailable(MenaceError):
    """The sandbox that was asked for cannot run on this machine (e.g. bubblewrap is missing)."""

    exit_code: ClassVar[int] = 2
