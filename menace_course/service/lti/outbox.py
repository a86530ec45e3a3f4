"""The one LTI call the recorder makes: a recorded check queues its score for the LMS.

Kept apart from :mod:`.passback` so that whoever records results (the web process, a
distributed worker) needs only the database, not the LTI library.
"""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session

from menace_course.service.db.tables import Attempt, now
from menace_course.service.lti.tables import LtiOutcome


def note_result(session: Session, attempt_id: str) -> int:
    """Queue the passback of a just-recorded attempt; call it in the transaction that recorded it.

    Returns how many LMS links the score will go to (0 for a student who never launched).
    """
    attempt = session.get(Attempt, attempt_id)
    if attempt is None or attempt.user_id is None:
        return 0
    done = session.execute(
        update(LtiOutcome)
        .where(
            LtiOutcome.user_id == attempt.user_id,
            LtiOutcome.context_id == attempt.context_id,
            LtiOutcome.challenge == attempt.challenge,
        )
        .values(wanted=LtiOutcome.wanted + 1, next_try_at=now(), tries=0)
    )
    return int(getattr(done, "rowcount", 0) or 0)
