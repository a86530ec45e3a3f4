"""Scores back to the LMS gradebook (LTI Assignment and Grade Services), from a durable queue.

The queue is the ``lti_outcomes`` table (an *outbox*): a row per launched student and
resource link, saying where their score goes. Three things touch it:

1. a launch writes the row (:func:`remember_launch`) with the launch's AGS claim;
2. recording a check's result calls :func:`~.outbox.note_result` **in the same transaction**, which
   raises the row's ``wanted`` counter; so a recorded check always has its passback queued,
   whatever crashes next, and the student's check never waits for the LMS;
3. :class:`PassbackSender`, a thread beside the web app, sends what is due
   (:func:`send_due`): the score the challenge's policy picks (``best`` or ``latest``, from
   ``score_policy`` in ``challenge.toml``), to the launch's line item, or to one it finds or
   creates for the link and then reuses. On failure (LMS down, slow, refusing) it tries again
   later, waiting 5 s, 10 s, 20 s ... up to an hour between tries, and never gives up; the
   instructor's table shows each row's state and can send again at once.

Scores are posted with pylti1p3 (token request, score POST); the tool never builds a JWT
or an OAuth2 request itself. Every HTTP call has a timeout.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import requests
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.contrib.flask.service_connector import FlaskServiceConnector
from pylti1p3.exception import LtiException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from menace_course.service.db.engine import Database
from menace_course.service.db.tables import Attempt, AttemptStatus, now
from menace_course.service.lti.keys import KeyStore
from menace_course.service.lti.origins import on_platform, registered_origins
from menace_course.service.lti.tables import LtiOutcome, LtiPlatform
from menace_course.service.lti.toolconf import registration_for

log = logging.getLogger("menace.lti.passback")

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
#: Seconds for one HTTP call to the LMS (connect, read).
HTTP_TIMEOUT = (5.0, 20.0)
FIRST_RETRY_SECONDS = 5.0
MAX_RETRY_SECONDS = 3600.0
POLICIES = ("best", "latest")
#: How long a worker owns a row it is sending (longer than the HTTP calls can take).
LEASE_SECONDS = 120.0


# the queue ---------------------------------------------------------------------------------


def remember_launch(
    session: Session,
    *,
    user_id: int,
    context_id: int,
    platform_id: int,
    deployment_id: str,
    resource_link_id: str,
    challenge: str,
    ags: dict[str, Any] | None,
) -> LtiOutcome:
    """Write where this student's score for this link goes (from the launch's AGS claim).

    Only grade service URLs on the platform's registered origins are kept (:mod:`.origins`).
    """
    platform = session.get(LtiPlatform, platform_id)
    origins = registered_origins(session, platform) if platform is not None else set()
    outcome = session.scalar(
        select(LtiOutcome).where(
            LtiOutcome.user_id == user_id,
            LtiOutcome.context_id == context_id,
            LtiOutcome.resource_link_id == resource_link_id,
        )
    )
    if outcome is None:
        outcome = LtiOutcome(
            user_id=user_id,
            context_id=context_id,
            resource_link_id=resource_link_id,
            wanted=0,
            sent=0,
            tries=0,
        )
        session.add(outcome)
    claim = ags or {}
    lineitem, lineitems = (_on_platform(claim.get(k), origins) for k in ("lineitem", "lineitems"))
    if lineitem or outcome.challenge != challenge:
        outcome.lineitem_url = lineitem  # a made line item is kept unless the LMS names one
    outcome.platform_id = platform_id
    outcome.deployment_id = deployment_id
    outcome.challenge = challenge
    outcome.lineitems_url = lineitems
    outcome.scopes = [s for s in claim.get("scope", []) if isinstance(s, str)]
    session.flush()
    if _has_score(session, outcome) and outcome.sent == 0 and outcome.wanted == 0:
        # Checked before (say, outside the LMS) and never sent: the gradebook gets it now.
        outcome.wanted, outcome.next_try_at = 1, now()
    return outcome


def _on_platform(url: object, origins: set[str]) -> str | None:
    """``url`` if it is a string on one of ``origins``; else None, and a warning in the log."""
    if not isinstance(url, str) or not url:
        return None
    if on_platform(url, origins):
        return url
    log.warning(
        "a launch named the grade service URL %.200r, not on the platform's registered origins (%s): "
        "ignored; if the LMS serves grades there, register it with "
        "'menace lti add-platform ... --grades-origin ORIGIN'",
        url,
        ", ".join(sorted(origins)),
    )
    return None


def resend(session: Session, outcome_id: int, context_id: int) -> bool:
    """Send this row's score again now (the instructor's button); only within ``context_id``."""
    outcome = session.get(LtiOutcome, outcome_id)
    if outcome is None or outcome.context_id != context_id:
        return False
    if not _has_score(session, outcome):
        return False
    outcome.wanted = max(outcome.wanted, outcome.sent) + 1
    outcome.next_try_at = now()
    outcome.tries = 0
    return True


def _has_score(session: Session, outcome: LtiOutcome) -> bool:
    return (
        session.scalar(
            select(Attempt.id)
            .where(
                Attempt.user_id == outcome.user_id,
                Attempt.context_id == outcome.context_id,
                Attempt.challenge == outcome.challenge,
                Attempt.status == AttemptStatus.DONE,
            )
            .limit(1)
        )
        is not None
    )


def retry_delay(tries: int) -> float:
    """Seconds to wait after the ``tries``-th failure: doubling from 5 s, at most an hour, jittered."""
    base = min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** max(0, tries - 1))
    return float(base * random.uniform(0.8, 1.0))


# what is sent ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """The score a policy picks from a student's checked attempts."""

    given: float
    maximum: float
    attempt_id: str


def pick_score(session: Session, outcome: LtiOutcome, policy: str) -> Score | None:
    """The student's best or latest checked score at the challenge, in this context only."""
    attempts = list(
        session.scalars(
            select(Attempt)
            .where(
                Attempt.user_id == outcome.user_id,
                Attempt.context_id == outcome.context_id,
                Attempt.challenge == outcome.challenge,
                Attempt.status == AttemptStatus.DONE,
                Attempt.score.is_not(None),
            )
            .order_by(Attempt.created_at, Attempt.finished_at)
        )
    )
    if not attempts:
        return None
    chosen = attempts[-1] if policy == "latest" else max(attempts, key=lambda a: a.score or 0.0)
    return Score(float(chosen.score or 0.0), float(chosen.max_score or 0.0), chosen.id)


def timestamp(moment: datetime | None = None) -> str:
    """An ISO 8601 time with microseconds and a zone, as AGS asks for scores."""
    return (moment or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="microseconds")


class TimeoutSession(requests.Session):
    """A requests session where every call has :data:`HTTP_TIMEOUT` unless told otherwise."""

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        """Send with a timeout."""
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        return super().request(method, url, *args, **kwargs)


class TokenCachingConnector(FlaskServiceConnector):
    """pylti1p3's service connector, remembering access tokens per process until they expire.

    The key is the issuer, the client id *and* the scopes: two registrations on one issuer
    (Canvas cloud) never share a token.
    """

    _tokens: dict[str, tuple[str, datetime]] = {}  # noqa: RUF012 (shared by design, per process)
    _lock = threading.Lock()

    def _scope_key(self, scopes: Any) -> str:
        return f"{self._registration.get_client_id()}|{super()._scope_key(scopes)}"

    def _get_cached_access_token(self, scope_key: str) -> str | None:
        with self._lock:
            cached = self._tokens.get(scope_key)
        if cached is not None and cached[1] > datetime.now(UTC):
            return cached[0]
        return None

    def _cache_access_token(self, scope_key: str, access_token: str, expires_in: float) -> None:
        # Forget it a minute early, so a token never expires on its way to the LMS.
        until = datetime.now(UTC) + timedelta(seconds=max(0.0, float(expires_in or 0) - 60))
        with self._lock:
            self._tokens[scope_key] = (access_token, until)

    @classmethod
    def forget(cls) -> None:
        """Drop every cached token (after a refusal: the next try asks for a new one)."""
        with cls._lock:
            cls._tokens.clear()


@dataclass(frozen=True)
class GradeColumn:
    """What passback needs to know of a challenge: the column's title, the policy, the maximum.

    (Not a :class:`~menace_course.catalog.Challenge`: only what the gradebook is told.)
    """

    title: str
    policy: str
    max_score: float | None


def post_score(
    outcome: LtiOutcome, score: Score, challenge: GradeColumn, keys: KeyStore, sub: str, origins: set[str]
) -> str | None:
    """Post one score with pylti1p3; returns the line item URL used when the tool made one.

    Only to URLs on ``origins`` (the platform's, :mod:`.origins`): the access token goes
    nowhere else.

    Raises:
        LtiException, requests.RequestException: the LMS did not take it.
    """
    for url in (outcome.lineitem_url, outcome.lineitems_url):
        if url and not on_platform(url, origins):
            raise LtiException(
                f"the grade service URL {url[:200]!r} is not on the platform's registered origins"
            )
    registration = registration_for(outcome.platform, keys)
    connector = TokenCachingConnector(registration, TimeoutSession())
    scopes = list(outcome.scopes or [])
    service_data: dict[str, Any] = {"scope": scopes}
    if outcome.lineitem_url:
        service_data["lineitem"] = outcome.lineitem_url
    if outcome.lineitems_url:
        service_data["lineitems"] = outcome.lineitems_url
    ags = AssignmentsGradesService(connector, service_data)  # type: ignore[arg-type]
    maximum = challenge.max_score or score.maximum
    grade = (
        Grade()
        .set_score_given(score.given)
        .set_score_maximum(maximum)
        .set_timestamp(timestamp())
        .set_activity_progress("Completed")
        .set_grading_progress("FullyGraded")
        .set_user_id(sub)
    )
    if outcome.lineitem_url:
        ags.put_grade(grade)
        return None
    if not outcome.lineitems_url or LINEITEM_SCOPE not in scopes:
        raise LtiException("the LMS gave this link no grade column and no right to make one")
    tag = f"menace:{outcome.challenge}"
    wanted = (
        LineItem()
        .set_label(challenge.title)
        .set_score_maximum(maximum)
        .set_resource_id(outcome.challenge)
        .set_resource_link_id(outcome.resource_link_id)
        .set_tag(tag)
    )
    lineitem = ags.find_or_create_lineitem(
        wanted,
        condition=lambda item: (
            item.get("resourceLinkId") == outcome.resource_link_id and item.get("tag") == tag
        ),
    )
    if not on_platform(lineitem.get_id(), origins):
        made = str(lineitem.get_id())[:200]
        raise LtiException(f"the LMS's line item {made!r} is not on the platform's registered origins")
    ags.put_grade(grade, lineitem)
    return lineitem.get_id()


# the worker ------------------------------------------------------------------------------


def send_due(
    db: Database,
    keys: KeyStore,
    challenge_info: Callable[[str], GradeColumn],
    limit: int = 20,
) -> int:
    """Send every due score (up to ``limit``); returns how many were sent."""
    when = now()
    with db.reading() as session:
        due_ids = list(
            session.scalars(
                select(LtiOutcome.id)
                .where(LtiOutcome.sent < LtiOutcome.wanted, LtiOutcome.next_try_at <= when)
                .order_by(LtiOutcome.next_try_at)
                .limit(limit)
            )
        )
    sent = 0
    for outcome_id in due_ids:
        sent += send_one(db, keys, challenge_info, outcome_id)
    return sent


def send_one(
    db: Database, keys: KeyStore, challenge_info: Callable[[str], GradeColumn], outcome_id: int
) -> int:
    """Send one row's score; 1 when the LMS took it, 0 otherwise (then a retry is set).

    The row is claimed first (its next try moved :data:`LEASE_SECONDS` ahead in one
    conditional UPDATE), so two web processes never post the same score at once.
    """
    with db.writing() as session:
        claimed = session.execute(
            update(LtiOutcome)
            .where(LtiOutcome.id == outcome_id, LtiOutcome.next_try_at <= now())
            .values(next_try_at=now() + timedelta(seconds=LEASE_SECONDS))
        )
        if not getattr(claimed, "rowcount", 0):
            return 0
    with db.reading() as session:
        outcome = session.get(LtiOutcome, outcome_id)
        if outcome is None or not outcome.due:
            return 0
        _ = outcome.platform, outcome.user  # load them before the session closes
        origins = registered_origins(session, outcome.platform)
        wanted = outcome.wanted
        problem: str | None = None
        try:
            challenge = challenge_info(outcome.challenge)
        except Exception as error:  # a broken challenge.toml must not stop other passbacks
            challenge, problem = GradeColumn(outcome.challenge, "best", None), str(error)
        score = pick_score(session, outcome, challenge.policy)
    if score is None:  # nothing checked yet (or the attempts were removed): nothing to send
        with db.writing() as session:
            session.execute(update(LtiOutcome).where(LtiOutcome.id == outcome_id).values(sent=wanted))
        return 0
    if problem is not None:
        log.warning("challenge %s cannot be read (%s); sending the best score", outcome.challenge, problem)
    from menace_course.service import metrics

    if outcome.tries:
        metrics.PASSBACK_RETRIES.inc()
    try:
        made = post_score(outcome, score, challenge, keys, outcome.user.subject, origins)
    except (LtiException, requests.RequestException, ValueError, KeyError) as error:
        metrics.PASSBACK_FAILURES.inc()
        TokenCachingConnector.forget()
        tries = outcome.tries + 1
        delay = retry_delay(tries)
        message = _describe(error)
        log.warning(
            "passback of %s for %s (%s) failed, try %d, next in %.0f s: %s",
            outcome.challenge,
            outcome.user.subject,
            outcome.platform.issuer,
            tries,
            delay,
            message,
        )
        with db.writing() as session:
            session.execute(
                update(LtiOutcome)
                .where(LtiOutcome.id == outcome_id)
                .values(tries=tries, next_try_at=now() + timedelta(seconds=delay), last_error=message)
            )
        return 0
    log.info(
        "passback of %s for %s (%s): %g/%g sent",
        outcome.challenge,
        outcome.user.subject,
        outcome.platform.issuer,
        score.given,
        challenge.max_score or score.maximum,
    )
    values: dict[str, Any] = {
        "sent": wanted,
        "tries": 0,
        "last_error": None,
        "sent_at": now(),
        "sent_score": score.given,
        "sent_max": challenge.max_score or score.maximum,
    }
    if made:
        values["lineitem_url"] = made
    with db.writing() as session:
        session.execute(update(LtiOutcome).where(LtiOutcome.id == outcome_id).values(**values))
    return 1


def _describe(error: BaseException) -> str:
    """A one-line reason for the instructor's table (no response bodies: they can be huge)."""
    if isinstance(error, requests.Timeout):
        return "the LMS did not answer in time"
    if isinstance(error, requests.ConnectionError):
        return "the LMS could not be reached"
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:300]


class PassbackSender:
    """A daemon thread that sends due scores every ``interval`` seconds (sooner when woken)."""

    def __init__(
        self,
        db: Database,
        keys: KeyStore,
        challenge_info: Callable[[str], GradeColumn],
        interval: float = 2.0,
    ) -> None:
        """Prepare; nothing runs until :meth:`start`."""
        self.db = db
        self.keys = keys
        self.challenge_info = challenge_info
        self.interval = interval
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._starting = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread (the first call; later ones, and any after :meth:`stop`, do nothing)."""
        with self._starting:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="lti-passback", daemon=True)
                self._thread.start()

    def wake(self) -> None:
        """Look for due scores now (a check was just recorded)."""
        self._wake.set()

    def stop(self) -> None:
        """Stop after the score being sent, if any."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                send_due(self.db, self.keys, self.challenge_info)
            except Exception as error:  # the database away for a moment: say so, keep going
                log.warning("passback round failed (%s); again in %g s", _describe(error), self.interval)
            self._wake.wait(self.interval)
            self._wake.clear()
