"""The one interface between the web app and whatever runs the checks: :class:`Dispatcher`.

The web app never runs student code. For every check it does, in this order::

    with dispatcher.accepting() as enqueue:   # QueueFull (-> 429) before anything is stored
        attempt = store_attempt(...)          # committed: the attempt now survives anything
        enqueue(CheckJob.of(attempt))         # only then is it acknowledged (202)

and later ``dispatcher.wait(attempt_id, seconds)`` to answer ``?wait=`` in one round trip.
Whoever runs a check tells a :class:`Recorder` when it starts and what it found (the typed
:class:`~menace_course.models.SubmissionReport`); the recorder writes the database
(``status running``, then the report, exactly once by the attempt's id), so a job that
runs twice is recorded once.

Implementations, both on :class:`~menace_course.service.dispatch.grading.JobGraders`:

- :class:`~menace_course.service.dispatch.local.LocalPool` (the embedded default): the
  pool's warm grader processes in the web process's machine, an in-memory queue, and
  at start-up every attempt the database has as unfinished is queued again.
- :class:`~menace_course.service.dispatch.procrastinate_web.ProcrastinateDispatcher`
  (PostgreSQL): ``enqueue`` defers a task carrying the attempt id; ``menace worker``
  checks it and records through the same :class:`Recorder` functions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from menace_course.models import SubmissionReport
from menace_course.service.db.tables import Attempt
from menace_course.wording import N_

#: The one lane every anonymous check (``--open``) waits in, whatever its address: together
#: they get the turns of one student, however many addresses send them.
ANONYMOUS_LANE = "anonymous"


def lane_of(attempt: Attempt) -> str:
    """The lane a dispatcher serves the attempt in: its student's, or the anonymous one."""
    return f"user:{attempt.user_id}" if attempt.user_id is not None else ANONYMOUS_LANE


@dataclass(frozen=True)
class CheckJob:
    """What a grader needs to check one attempt (it crosses to a grader process, pickled).

    ``lane`` and ``ahead`` are for the dispatcher's fair share (graders ignore them): whose
    turn the check waits for, and how many of that lane's checks were waiting before it.
    """

    attempt_id: str
    challenge: str
    filename: str
    source: str
    lane: str = ""
    ahead: int = 0
    request_id: str = ""  #: the request that made it, for the log lines of its check

    @classmethod
    def of(cls, attempt: Attempt, ahead: int = 0) -> CheckJob:
        """The job of a stored attempt, with the id of the request that made it.

        (An attempt stored before attempts kept that id has none: then the id of the
        request this runs in, if any.)
        """
        from menace_course.service.logs import request_id

        lane, made_by = lane_of(attempt), attempt.request_id or request_id.get()
        return cls(attempt.id, attempt.challenge, attempt.filename, attempt.source, lane, ahead, made_by)


#: Why a check was not taken, as message ids: the intake says them in the student's language.
QUEUE_IS_FULL = N_("the check queue is full; try again shortly")
SERVICE_IS_STOPPING = N_("the service is stopping; try again shortly")


class QueueFull(Exception):
    """Too many checks are waiting: try again after ``retry_after`` seconds (HTTP 429).

    ``message`` is a message id (:data:`QUEUE_IS_FULL`, :data:`SERVICE_IS_STOPPING`), in English.
    """

    def __init__(self, retry_after: int, message: str = QUEUE_IS_FULL) -> None:
        """Say when to come back."""
        super().__init__(message)
        self.retry_after = max(1, int(retry_after))


class Recorder(Protocol):
    """Where a dispatcher reports progress; see :mod:`menace_course.service.db.attempts`."""

    def started(self, attempt_id: str) -> bool:
        """A grader started on the attempt; False when it is already recorded (skip it)."""
        ...

    def finished(self, attempt_id: str, report: SubmissionReport) -> bool:
        """The attempt's report; True when this call recorded it (the first time)."""
        ...


#: ``enqueue(job)``, handed out by :meth:`Dispatcher.accepting`.
Enqueue = Callable[[CheckJob], None]


class Dispatcher(Protocol):
    """Runs checks for the web app (see the module's docstring for the order of calls)."""

    def start(self, recorder: Recorder, backlog: list[CheckJob]) -> None:
        """Start running checks; ``backlog`` holds accepted attempts not yet recorded."""
        ...

    def accepting(self) -> contextlib.AbstractContextManager[Enqueue]:
        """Reserve room for one check, or raise :class:`QueueFull`; the block stores and enqueues."""
        ...

    def wait(self, attempt_id: str, timeout: float) -> None:
        """Return when the attempt may be recorded, or after ``timeout`` seconds (then re-read it)."""
        ...

    def depth(self) -> int:
        """Checks accepted and not yet finished."""
        ...

    def health(self) -> dict[str, Any]:
        """Plain facts for ``/healthz``: at least ``{"ok": bool, "workers": int, "queued": int}``."""
        ...

    def stop(self) -> None:
        """Stop taking checks and end the workers (unfinished ones run again at the next start)."""
        ...
