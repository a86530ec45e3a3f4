"""The next submission's sandbox, started before it arrives: one per grader process, used once.

A grader process that checks one submission after another (the check service's graders,
``menace grade``'s, ``menace validate``'s) starts the next child as soon as it has sent a
result (:func:`refill`, run between tasks by :mod:`menace_course.pool`). When the next
submission comes, bubblewrap and Python are already running, and the harness is waiting
for its first message (:meth:`Child.ahead`): the sandbox's start, about 30 ms of wall time
a check, is off that check's path (docs/scaling.md has the figures).

What still holds, as without a spare:

* **One sandbox per submission.** A spare has run nothing but the harness; it is given
  exactly one submission (:meth:`Child.assign` refuses a second) and is killed with it.
  It is started only after the last submission's child was killed, so nothing that child
  left (a process, a file in its ``/tmp``) can be in it.
* **The same limits.** A spare's limits are fixed when it starts (they are on the
  harness's command line), so it is used only for a submission of exactly the same sandbox
  kind and :class:`~menace_course.limits.Limits`; otherwise it is closed and a child is
  started for the submission as before.
* **The same charges.** The spare's start is never charged: its clock and budget start
  when it is given its submission.
* **A dead spare is nobody's fault.** A spare that died while it waited (the system killed
  it) is closed and replaced by a fresh child, never handed to a submission.

Only a process that checks more than one file opts in (:func:`enable`); a one-shot
``menace check`` starts its child as early as it can instead (``commands/check.py``).
"""

from __future__ import annotations

import atexit

from menace_course.errors import MenaceError
from menace_course.limits import Limits
from menace_course.models import SandboxKind
from menace_course.sandbox.child import Child

_enabled = False
#: the child started ahead, waiting for its submission
_kept: Child | None = None
#: the sandbox kind and limits of the last submission: what the next one most likely needs
_wanted: tuple[SandboxKind, Limits] | None = None


def enable() -> None:
    """Keep a spare from now on, in this process (a grader process that checks file after file)."""
    global _enabled
    if not _enabled:
        _enabled = True
        atexit.register(discard)


def claim(kind: SandboxKind, limits: Limits) -> Child | None:
    """The spare, if there is one for exactly this kind and these limits and it is alive; else None.

    Either way the spare is no longer kept: a matching one is the caller's to
    :meth:`~Child.assign` and close, any other is closed here. What was asked for is
    remembered, so that :func:`refill` starts the next spare to match.
    """
    global _kept, _wanted
    if not _enabled:
        return None
    _wanted = (kind, limits)
    spare, _kept = _kept, None
    if spare is None:
        return None
    if spare.kind != kind or spare.limits != limits or not spare.waiting():
        spare.close()
        return None
    return spare


def refill() -> None:
    """Start a spare like the last submission's child, unless one is kept (or spares are off).

    A sandbox that cannot start now is left alone: the next submission starts its own
    child, and reports why if it cannot.
    """
    global _kept
    if not _enabled or _wanted is None or _kept is not None:
        return
    try:
        _kept = Child.ahead(*_wanted)
    except (OSError, MenaceError):
        _kept = None


def discard() -> None:
    """Kill the spare, if any, and remove its scratch folder."""
    global _kept
    spare, _kept = _kept, None
    if spare is not None:
        spare.close()
