"""The one LTI call the recorder makes: a recorded check queues its score for the LMS.

Kept apart from :mod:`.passback` so that whoever records results (the web process, a
distributed worker) needs only the database, not the LTI library.
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.orm import Session

from menace_course.service.db.tables import Attempt, now
from menace_course.service.lti.tables import LtiOutcome

#: Whose score an attempt is, and for what (parameter ``attempt``).
_OWNER = select(Attempt.user_id, Attempt.context_id, Attempt.challenge).where(
    Attempt.id == bindparam("attempt")
)
#: One more passback wanted, now (parameters ``user``, ``context``, ``slug``, ``at``).
_OUTCOMES_TABLE = cast(Table, LtiOutcome.__table__)
_OUTCOMES = _OUTCOMES_TABLE.c
_WANT_PASSBACK = (
    update(_OUTCOMES_TABLE)
    .where(
        _OUTCOMES.user_id == bindparam("user"),
        _OUTCOMES.context_id == bindparam("context"),
        _OUTCOMES.challenge == bindparam("slug"),
    )
    .values(wanted=_OUTCOMES.wanted + 1, next_try_at=bindparam("at"), tries=0)
)


def note_result(session: Session, attempt_id: str) -> int:
    """Queue the passback of a just-recorded attempt; call it in the transaction that recorded it.

    Returns how many LMS links the score will go to (0 for a student who never launched).
    Reads only the three columns it needs (not the attempt's source and report), and
    updates the table (Core: the session holds no passback row to bring up to date); both
    statements are built once (see :mod:`~menace_course.service.db.attempts` on why).
    """
    found = session.execute(_OWNER, {"attempt": attempt_id}).first()
    if found is None or found.user_id is None:
        return 0
    wanted = {"user": found.user_id, "context": found.context_id, "slug": found.challenge, "at": now()}
    done = session.execute(_WANT_PASSBACK, wanted)
    return int(getattr(done, "rowcount", 0) or 0)
