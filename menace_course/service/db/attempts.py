"""Attempts: stored before they are acknowledged, started, and recorded exactly once.

The life of an attempt, and who writes each step::

    admit_attempt   the web process, before it answers 202      status queued
    mark_running    whoever runs it (may happen again after a crash) status running, runs + 1
    record_result   whoever finished it                          status done, report

:func:`record_result` writes only if the attempt is not done yet, in one conditional
UPDATE, so a check that ran twice (a grader killed after finishing, then re-run) is
recorded once; its return value says whether this call was the one that recorded it, so
side effects (an LMS score passback, say) happen once too.

:func:`admit_attempt` is how an attempt is created: it counts the checks already waiting
(the student's lane, all anonymous checks together, the whole service) and stores the new
one in the same transaction, holding a lock that makes every other admission wait for the
commit, so no two requests can both see "2 of 3" and both get in. On SQLite that lock is
the write lock ``BEGIN IMMEDIATE`` takes (:mod:`~menace_course.service.db.engine`); on
PostgreSQL a transaction-scoped advisory lock (:data:`ADMISSION_LOCK`). The admission is a
few milliseconds of work, so making them queue costs nothing a student would notice.

:func:`mark_running` and :func:`record_result` are plain SQL UPDATEs of the table (SQLAlchemy
Core, not the ORM's UPDATE of the ``Attempt`` class): they run in a session of their own
that has loaded no attempt, so there is nothing in it to bring up to date, and the ORM's
UPDATE (its session synchronisation, its bulk-persistence layer) cost more CPU than the
statement itself (issue 26). The statements a check runs every time are built once, at
import, with named parameters: building a statement and its cache key anew (operator
overloads, coercions) was most of what SQLAlchemy spent on each.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, select, text, update
from sqlalchemy.orm import Session

from menace_course.models import SubmissionReport
from menace_course.service.db.tables import Attempt, AttemptStatus, Membership, Role, User, now

#: The PostgreSQL advisory lock (a 64-bit key) each admission holds until its transaction ends.
ADMISSION_LOCK = 0x6D656E6163653232


@dataclass(frozen=True)
class AdmissionLimits:
    """How many unfinished checks (queued or running) may exist when a new one is admitted."""

    per_lane: int  #: in the submitter's own lane (one student, or one anonymous address)
    queue: int  #: in the whole service
    shared: int | None = None  #: all anonymous checks together (None: the submitter is signed in)


class OverLimit(Exception):
    """An admission refused: ``which`` limit (``lane``, ``shared`` or ``queue``) is reached."""

    def __init__(self, which: str, waiting: int, limit: int) -> None:
        """Say which limit, and how full it is."""
        super().__init__(f"{which}: {waiting} of {limit} waiting")
        self.which = which
        self.waiting = waiting
        self.limit = limit


@dataclass(frozen=True)
class Admitted:
    """A stored attempt, and how many checks of its lane were waiting before it (its turn)."""

    attempt: Attempt
    ahead: int


def _count_unfinished(*where: Any) -> Any:
    return select(func.count()).select_from(Attempt).where(Attempt.status != AttemptStatus.DONE, *where)


#: Unfinished attempts: in one lane (parameter ``lane``), anonymous ones, all of them.
_UNFINISHED_IN_LANE = _count_unfinished(Attempt.lane == bindparam("lane"))
_UNFINISHED_ANONYMOUS = _count_unfinished(Attempt.user_id.is_(None))
_UNFINISHED = _count_unfinished()

_ATTEMPTS_TABLE = cast(Table, Attempt.__table__)
_ATTEMPTS = _ATTEMPTS_TABLE.c
#: A grader started (parameters ``attempt`` and ``started``); Core, see the module's docstring.
_MARK_RUNNING = (
    update(_ATTEMPTS_TABLE)
    .where(_ATTEMPTS.id == bindparam("attempt"), _ATTEMPTS.status != AttemptStatus.DONE)
    .values(status=AttemptStatus.RUNNING, runs=_ATTEMPTS.runs + 1, started_at=bindparam("started"))
)
#: The report stored, unless one is (parameters ``attempt``, ``report_data``, ``got``, ``out_of``,
#: ``finished``; each takes its column's type).
_RECORD_RESULT = (
    update(_ATTEMPTS_TABLE)
    .where(_ATTEMPTS.id == bindparam("attempt"), _ATTEMPTS.status != AttemptStatus.DONE)
    .values(
        status=AttemptStatus.DONE,
        report=bindparam("report_data"),
        score=bindparam("got"),
        max_score=bindparam("out_of"),
        finished_at=bindparam("finished"),
    )
)


def _unfinished(session: Session, counting: Any, **parameters: Any) -> int:
    return int(session.scalar(counting, parameters) or 0)


def _hold_admission_lock(session: Session) -> None:
    """Make concurrent admissions take turns until this transaction ends (see the module's docstring)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADMISSION_LOCK})
    # SQLite: the writing session began with BEGIN IMMEDIATE, which holds the write lock already.


def admit_attempt(
    session: Session,
    *,
    lane: str,
    limits: AdmissionLimits,
    context_id: int,
    user_id: int | None,
    challenge: str,
    filename: str,
    source: str,
    request_id: str | None = None,
) -> Admitted:
    """Count what waits and store the new attempt, atomically (in a :meth:`Database.writing` session).

    ``request_id`` is the id of the request that sent it (kept for the log lines of its check).

    Raises:
        OverLimit: the lane, the anonymous checks together, or the whole queue is full;
            nothing is stored.
    """
    _hold_admission_lock(session)
    ahead = in_lane = _unfinished(session, _UNFINISHED_IN_LANE, lane=lane)
    if in_lane >= limits.per_lane:
        raise OverLimit("lane", in_lane, limits.per_lane)
    if limits.shared is not None:
        ahead = shared = _unfinished(session, _UNFINISHED_ANONYMOUS)
        if shared >= limits.shared:
            raise OverLimit("shared", shared, limits.shared)
    total = _unfinished(session, _UNFINISHED)
    if total >= limits.queue:
        raise OverLimit("queue", total, limits.queue)
    attempt = store_attempt(
        session,
        context_id=context_id,
        user_id=user_id,
        challenge=challenge,
        filename=filename,
        source=source,
        lane=lane,
        request_id=request_id,
    )
    return Admitted(attempt, ahead)


def store_attempt(
    session: Session,
    *,
    context_id: int,
    user_id: int | None,
    challenge: str,
    filename: str,
    source: str,
    lane: str | None = None,
    request_id: str | None = None,
) -> Attempt:
    """Add a queued attempt, counting no limit (the caller's transaction commits it before answering)."""
    attempt = Attempt(
        id=str(uuid.uuid4()),
        user_id=user_id,
        context_id=context_id,
        challenge=challenge,
        filename=filename,
        source=source,
        sha256=hashlib.sha256(source.encode("utf-8")).hexdigest(),
        created_at=now(),
        status=AttemptStatus.QUEUED,
        runs=0,
        lane=lane,
        request_id=request_id or None,
    )
    session.add(attempt)
    session.flush()
    return attempt


def mark_running(session: Session, attempt_id: str) -> bool:
    """Note that a grader started on the attempt; False when it is already done.

    ``session`` should hold no object of this attempt (a recorder's session of its own):
    the UPDATE, the table's, does not bring such objects up to date.
    """
    done = session.execute(_MARK_RUNNING, {"attempt": attempt_id, "started": now()})
    return bool(getattr(done, "rowcount", 0))


def record_result(session: Session, attempt_id: str, report: SubmissionReport) -> bool:
    """Store the report of an attempt unless one is stored already; True if this call stored it.

    The column holds ``report.to_dict()``: what ``menace check --format json`` prints.
    As for :func:`mark_running`, ``session`` should hold no object of this attempt.
    """
    values = {
        "attempt": attempt_id,
        "report_data": report.to_dict(),
        "got": report.score,
        "out_of": report.max_score,
        "finished": now(),
    }
    done = session.execute(_RECORD_RESULT, values)
    return bool(getattr(done, "rowcount", 0))


def unfinished(session: Session) -> list[Attempt]:
    """Attempts accepted but not recorded (after a crash: to run again), oldest first."""
    return list(
        session.scalars(
            select(Attempt).where(Attempt.status != AttemptStatus.DONE).order_by(Attempt.created_at)
        )
    )


def waiting_in(session: Session, lane: str) -> int:
    """How many of the lane's attempts are queued or running (a reading, not an admission)."""
    return _unfinished(session, _UNFINISHED_IN_LANE, lane=lane)


def waiting_for(session: Session, user_id: int) -> int:
    """How many of the user's attempts are queued or running."""
    return _unfinished(session, _count_unfinished(Attempt.user_id == user_id))


def latest(session: Session, context_id: int, user_id: int, challenge: str, limit: int = 20) -> list[Attempt]:
    """A user's latest attempts at a challenge, newest first."""
    return list(
        session.scalars(
            select(Attempt)
            .where(
                Attempt.context_id == context_id,
                Attempt.user_id == user_id,
                Attempt.challenge == challenge,
            )
            .order_by(Attempt.created_at.desc())
            .limit(limit)
        )
    )


@dataclass(frozen=True)
class ClassRow:
    """One student's line in the instructor's table for one challenge."""

    user_id: int
    name: str
    attempts: int
    best: float | None
    latest: float | None
    max_score: float | None
    last_time: datetime | None
    latest_id: str | None
    best_id: str | None


def _no_attempt(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "attempts": 0,
        "best": None,
        "best_id": None,
        "latest": None,
        "latest_id": None,
        "max_score": None,
        "last_time": None,
    }


def class_table(session: Session, context_id: int, challenge: str) -> list[ClassRow]:
    """Every learner of the context (the roster), and anyone else with an attempt, by name.

    A learner who never checked has a row of no attempts. Best and latest count only checked
    attempts; an attempt still in the queue counts in the number of attempts and the last time.
    """
    rows: dict[int, dict[str, Any]] = {}
    learners = (
        select(User.id, User.name)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.context_id == context_id, Membership.role == Role.LEARNER)
    )
    for user_id, name in session.execute(learners):
        rows[user_id] = _no_attempt(name)
    query = (
        select(Attempt, User.name)
        .join(User, User.id == Attempt.user_id)
        .where(Attempt.context_id == context_id, Attempt.challenge == challenge)
        .order_by(Attempt.created_at)
    )
    for attempt, name in session.execute(query):
        assert attempt.user_id is not None
        row = rows.setdefault(attempt.user_id, _no_attempt(name))
        row["attempts"] += 1
        row["last_time"] = attempt.created_at
        if attempt.status is AttemptStatus.DONE and attempt.score is not None:
            row["latest"], row["latest_id"], row["max_score"] = attempt.score, attempt.id, attempt.max_score
            if row["best"] is None or attempt.score > row["best"]:
                row["best"], row["best_id"] = attempt.score, attempt.id
    return sorted(
        (ClassRow(user_id=uid, **values) for uid, values in rows.items()),
        key=lambda r: (r.name.casefold(), r.user_id),
    )


def user_attempts(session: Session, context_id: int, user_id: int, challenge: str) -> list[Attempt]:
    """Every attempt of one student at one challenge, oldest first (for the instructor)."""
    return list(
        session.scalars(
            select(Attempt)
            .where(
                Attempt.context_id == context_id,
                Attempt.user_id == user_id,
                Attempt.challenge == challenge,
            )
            .order_by(Attempt.created_at)
        )
    )


def best_scores(session: Session, context_id: int, user_id: int) -> dict[str, tuple[float, float]]:
    """A user's best score and the maximum, per challenge they have a checked attempt at."""
    rows = session.execute(
        select(Attempt.challenge, func.max(Attempt.score), func.max(Attempt.max_score))
        .where(
            Attempt.context_id == context_id,
            Attempt.user_id == user_id,
            Attempt.status == AttemptStatus.DONE,
        )
        .group_by(Attempt.challenge)
    ).all()
    return {slug: (float(best or 0), float(top or 0)) for slug, best, top in rows}
