"""The one LTI call the recorder makes: a recorded check queues its score for the LMS.

Kept apart from :mod:`.passback` so that whoever records results (the web process, a
distributed worker) needs only the database, not the LTI library.
"""

from __future__ import annotations

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from menace_course.service.db.attempts import NO_SESSION_SYNC
from menace_course.service.db.tables import Attempt, now
from menace_course.service.lti.tables import LtiOutcome

#: Whose score an attempt is, and for what (parameter ``attempt``).
_OWNER = select(Attempt.user_id, Attempt.context_id, Attempt.challenge).where(
    Attempt.id == bindparam("attempt")
)
#: One more passback wanted, now (parameters ``user``, ``context``, ``slug``, ``at``).
_WANT_PASSBACK = (
    update(LtiOutcome)
    .where(
        LtiOutcome.user_id == bindparam("user"),
        LtiOutcome.context_id == bindparam("context"),
        LtiOutcome.challenge == bindparam("slug"),
    )
    .values(wanted=LtiOutcome.wanted + 1, next_try_at=bindparam("at"), tries=0)
)


def note_result(session: Session, attempt_id: str) -> int:
    """Queue the passback of a just-recorded attempt; call it in the transaction that recorded it.

    Returns how many LMS links the score will go to (0 for a student who never launched).
    Reads only the three columns it needs (not the attempt's source and report), and
    updates without synchronising the session (which holds no passback row); both
    statements are built once (see :mod:`~menace_course.service.db.attempts` on why).
    """
    found = session.execute(_OWNER, {"attempt": attempt_id}).first()
    if found is None or found.user_id is None:
        return 0
    wanted = {"user": found.user_id, "context": found.context_id, "slug": found.challenge, "at": now()}
    done = session.execute(_WANT_PASSBACK, wanted, execution_options=NO_SESSION_SYNC)
    return int(getattr(done, "rowcount", 0) or 0)
