"""The JSON API, ``/api/v1`` (documented in docs/api.md and at ``/api/v1/openapi.json``).

    POST /api/v1/checks[?wait=S][&format=F]  store and queue a check: 202 {id, status, url};
                                             200 with the report when done within S seconds
    GET  /api/v1/checks/<id>[?wait=S][&format=F]  {id, status, report, ...}; report as
                                             ``menace check --format json``, null until done
    GET  /api/v1/challenges                  the course's challenges
    GET  /api/v1/openapi.json                this API, described

Every error is a :class:`~.refusal.Refusal`, answered by the app's one handler as JSON,
``{"error": code, "message": sentence}``, with its HTTP status (and ``Retry-After`` when it ends by itself).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, url_for
from marshmallow import ValidationError

from menace_course import catalog
from menace_course.feedback import Format
from menace_course.models import SubmissionReport
from menace_course.service.auth import (
    AuthError,
    check_csrf_for_cookie,
    remember_anonymous,
    require_checker,
    who,
)
from menace_course.service.db.tables import Attempt, AttemptStatus
from menace_course.service.dispatch.waits import POLL_LIMIT, pacer, wait_for
from menace_course.service.intake import accept, feedback
from menace_course.service.languages import gettext as _
from menace_course.service.openapi import build_spec, documented
from menace_course.service.rate_limits import limiter, rate_key, submission_limit
from menace_course.service.refusal import Refusal
from menace_course.service.schemas import CheckRequestSchema, invalid_fields
from menace_course.service.state import state
from menace_course.student_view import student_dict

api = Blueprint("api", __name__, url_prefix="/api/v1")
FORMATS = ("text", "markdown", "html")

_ERRORS = {
    "400": {
        "description": "Unknown challenge, bad file name or malformed body",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    },
    "401": {
        "description": "No token, or a token that is not valid",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    },
    "403": {
        "description": "Not yours to see (or a cookie without its CSRF token)",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    },
}
#: The header of an answer that ends by itself: a 429, or a check whose wait was refused.
_RETRY_AFTER = {
    "Retry-After": {
        "description": "Whole seconds to leave before asking again (honour it: sooner is refused)",
        "schema": {"type": "integer", "minimum": 1},
    }
}
_TOO_MANY = {
    "description": "Too many requests, or a read sooner than a refused wait's Retry-After (`too_soon`)",
    "headers": _RETRY_AFTER,
    "content": {"application/json": {"schema": "Error"}},
}
_WAIT = {
    "name": "wait",
    "in": "query",
    "schema": {"type": "number", "minimum": 0, "maximum": 30},
    "description": "Wait up to this many seconds for the check to finish before answering.",
}
_FORMAT = {
    "name": "format",
    "in": "query",
    "schema": {"type": "string", "enum": list(FORMATS)},
    "description": "Also give the report in words (`feedback`), as `menace check --format` would.",
}


def _wait_seconds() -> float:
    raw = request.args.get("wait", "0")
    try:
        seconds = float(raw)
    except ValueError:
        raise Refusal(
            400, "bad_request", _("%(wait)s is not a number of seconds") % {"wait": f"wait={raw[:20]!r}"}
        ) from None
    if not 0 <= seconds <= 3600:
        raise Refusal(
            400, "bad_request", _("%(key)s must be between 0 and the service's limit") % {"key": "wait"}
        )
    return min(seconds, state().config.max_wait_seconds)


def _format() -> Format | None:
    raw = request.args.get("format")
    if raw is None:
        return None
    if raw not in FORMATS:
        raise Refusal(
            400,
            "bad_request",
            _("%(key)s must be one of %(values)s")
            % {"key": "format", "values": ", ".join(map(repr, FORMATS))},
        )
    return raw  # type: ignore[return-value]


def shown_report(report: SubmissionReport | None) -> dict[str, Any] | None:
    """The stored report (the instructor's record) as a student may see it (``student_view``)."""
    return None if report is None else student_dict(report)


def view(attempt: Attempt, format: Format | None = None) -> dict[str, Any]:
    """What the API says about an attempt."""
    data: dict[str, Any] = {
        "id": attempt.id,
        "status": attempt.status.value,
        "url": url_for("api.get_check", attempt_id=attempt.id, _external=False),
        "challenge": attempt.challenge,
        "filename": attempt.filename,
        "created_at": attempt.created_at.isoformat(),
        "report": shown_report(report := attempt.checked),
    }
    if format is not None and report is not None:
        data["feedback"] = feedback(state(), report, format)
    return data


def _load(attempt_id: str) -> Attempt | None:
    with state().db.reading() as db:
        return db.get(Attempt, attempt_id) if len(attempt_id) <= 36 else None


def _finished(attempt_id: str, seconds: float) -> tuple[Attempt | None, int | None]:
    """The attempt after waiting up to ``seconds`` for it to be done, and the Retry-After its
    answer carries when the wait was refused (rationed per student: then answered at once)."""
    if seconds > 0 and not wait_for(attempt_id, seconds):
        return _load(attempt_id), pacer().refused(f"read:{rate_key()}")
    return _load(attempt_id), None


def _paced(what: str, key: str) -> None:
    """Refuse a request before the Retry-After its sender was given (:class:`~.waits.Pacer`).

    ``what`` is ``read`` (after a refused wait) or ``check`` (after a refused check).
    """
    later = pacer().too_soon(f"{what}:{key}")
    if later is not None:
        message = _("you were asked to wait: send this again in %(seconds)s s, not sooner") % {
            "seconds": later
        }
        raise Refusal(429, "too_soon", message, later)


@api.post("/checks")
@limiter.limit(submission_limit)
@documented(
    summary="Check a submission",
    description="Stores the submission, then queues it. With ?wait=S the answer waits up to S seconds and "
    "is 200 with the report when the check finished in time.",
    security=[{"bearer": []}],
    parameters=[_WAIT, _FORMAT],
    requestBody={"required": True, "content": {"application/json": {"schema": "CheckRequest"}}},
    responses={
        "202": {
            "description": "Stored and queued (Retry-After when the wait was refused: read it no sooner)",
            "headers": _RETRY_AFTER,
            "content": {"application/json": {"schema": "CheckAccepted"}},
        },
        "200": {"description": "Done within ?wait", "content": {"application/json": {"schema": "Check"}}},
        **_ERRORS,
        "413": {
            "description": "The submission is too large",
            "content": {"application/json": {"schema": "Error"}},
        },
        "429": {
            "description": "The queue is full, too many of your checks wait, or too many requests: see "
            "Retry-After",
            "headers": _RETRY_AFTER,
            "content": {"application/json": {"schema": "Error"}},
        },
    },
)
def post_check() -> tuple[Response, int] | Response:
    """Store and queue a check (see the module's docstring)."""
    check_csrf_for_cookie()
    person = require_checker()
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise Refusal(
            400,
            "bad_request",
            _("the body must be a JSON object: %(shape)s") % {"shape": "{challenge, filename, source}"},
        )
    try:
        data = CheckRequestSchema().load(body)
    except ValidationError as invalid:
        fields = invalid_fields(invalid, _)
        raise Refusal(
            400, "bad_request", _("the body is not a check request (%(fields)s)") % {"fields": fields}
        ) from None
    wait, format = _wait_seconds(), _format()
    key = rate_key()
    _paced("check", key)
    try:
        attempt = accept(state(), person, data["challenge"], data["filename"], data["source"])
    except Refusal as refused:
        if refused.status == 429 and refused.retry_after is not None:
            pacer().refused(f"check:{key}", refused.retry_after)  # sooner is refused from memory
        raise
    if not person.signed_in and current_app.config["SESSION_COOKIE_NAME"] in request.cookies:
        remember_anonymous(attempt.id)  # a browser practising: its page lists it after a reload
    done, retry_after = _finished(attempt.id, wait) if wait else (attempt, None)
    assert done is not None
    if done.status is AttemptStatus.DONE:
        return jsonify(view(done, format)), 200
    short = {k: v for k, v in view(done).items() if k in ("id", "status", "url")}
    response = jsonify(short)
    response.headers["Location"] = short["url"]
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response, 202


@api.get("/checks/<attempt_id>")
@limiter.limit(POLL_LIMIT)
@documented(
    summary="A check and its report",
    security=[{"bearer": []}],
    parameters=[
        {"name": "attempt_id", "in": "path", "required": True, "schema": {"type": "string"}},
        _WAIT,
        _FORMAT,
    ],
    responses={
        "200": {
            "description": "The check (with Retry-After when it is not done and the wait was refused)",
            "headers": _RETRY_AFTER,
            "content": {"application/json": {"schema": "Check"}},
        },
        **_ERRORS,
        "404": {"description": "No such check", "content": {"application/json": {"schema": "Error"}}},
        "429": _TOO_MANY,
    },
)
def get_check(attempt_id: str) -> Response:
    """A check: queued, running, or done with its report."""
    _paced("read", rate_key())
    person = who()
    attempt = _load(attempt_id)
    if attempt is None:
        raise Refusal(404, "not_found", _("no check has this id"))
    if attempt.user_id is not None and not person.signed_in:
        raise AuthError(401, _("sign in to see this check (Authorization: Bearer <token>)"))
    if not person.may_see(attempt.user_id, attempt.context_id):
        raise AuthError(403, _("this check is someone else's"))
    format, retry_after = _format(), None
    if attempt.status is not AttemptStatus.DONE:
        found, retry_after = _finished(attempt_id, _wait_seconds())
        attempt = found or attempt
    response = jsonify(view(attempt, format))
    if retry_after is not None and attempt.status is not AttemptStatus.DONE:
        response.headers["Retry-After"] = str(retry_after)
    return response


@api.get("/challenges")
@documented(
    summary="The course's challenges",
    responses={
        "200": {
            "description": "Every challenge",
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "challenges": {
                                "type": "array",
                                "items": {"$ref": "#/components/schemas/Challenge"},
                            }
                        },
                    }
                }
            },
        }
    },
)
def challenges() -> Response:
    """The course's challenges, with their pages."""
    return jsonify(
        {
            "challenges": [
                {
                    "slug": c.slug,
                    "title": c.title,
                    "stars": c.stars,
                    "function": c.function,
                    "url": url_for("pages.challenge", slug=c.slug),
                }
                for c in catalog.load_all(state().course)
            ]
        }
    )


@api.get("/openapi.json")
def openapi() -> Response:
    """This API, as an OpenAPI 3.1 document."""
    return jsonify(build_spec(current_app))
