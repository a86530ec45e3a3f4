"""The one refusal of the check service: :class:`Refusal`, and :func:`as_refusal`, the one map to it.

Everything the service refuses is raised as a :class:`Refusal` (an HTTP status, a short
``code``, a sentence that says what to do, and for a refusal that ends by itself the
seconds until it does) and answered by the app's one error handler (``app.py``), in one
shape: ``{"error": CODE, "message": SENTENCE}`` on the JSON APIs (``/api/``,
``/lesson/api/``, ``/healthz``), with ``Retry-After`` when ``retry_after`` is set, and
the error page on every other route. (A blueprint used in an app of its own, such as the
lesson page's in its tests, answers its refusals with :func:`json_answer` alone.) The tree::

    Refusal                    status, code, message, retry_after
     ├── AuthError             (service.auth) no credentials 401, not allowed 403, replaced 409
     └── Refused               (service.lti.views) a launch that cannot go on: its own page, with advice

Everything else (malformed input, unknown challenges, full queues, the lesson runner's
slots, early polls) raises ``Refusal`` itself. Exceptions that are not ours (Werkzeug's
HTTP errors, a CSRF failure, a rate limit, a body too large, a crash) become one in
:func:`as_refusal`, the only place that knows them; ``tests/core/test_architecture.py``
keeps every other refusal deriving from this class and every error answer made here.
"""

from __future__ import annotations

from flask import Response, jsonify
from flask_limiter.errors import RateLimitExceeded
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from menace_course.service.languages import gettext as _
from menace_course.wording import N_, reworded

#: flask-wtf's reasons for refusing a CSRF token, as message ids (worded in the request's language;
#: one not here stays flask-wtf's English).
CSRF_REASONS = (
    N_("The CSRF token is missing."),
    N_("The CSRF session token is missing."),
    N_("The CSRF token has expired."),
    N_("The CSRF token is invalid."),
    N_("The CSRF tokens do not match."),
    N_("The referrer header is missing."),
    N_("The referrer does not match the host."),
)

#: The ``code`` of a Werkzeug HTTP error we did not raise ourselves, by status.
HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}


class Refusal(Exception):
    """A request the service will not do: the HTTP status, a code, a sentence, and when to retry.

    Example::

        raise Refusal(429, "queue_full", "the queue is full: try again in a minute", retry_after=60)
    """

    def __init__(self, status: int, code: str, message: str, retry_after: int | None = None) -> None:
        """Keep what the answer needs (``retry_after`` in whole seconds, at least 1 when set)."""
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = None if retry_after is None else max(1, int(retry_after))

    def page(self) -> str | None:
        """The HTML a browser route shows for it; None: the service's error page (a subclass's own)."""
        return None


def json_answer(refusal: Refusal) -> Response:
    """The refusal as JSON, ``{"error": code, "message": sentence}``, its status and Retry-After."""
    response = jsonify({"error": refusal.code, "message": refusal.message})
    response.status_code = refusal.status
    if refusal.retry_after is not None:
        response.headers["Retry-After"] = str(refusal.retry_after)
    return response


def as_refusal(error: Exception, max_body_kb: int, rate_retry: int) -> Refusal | None:
    """The refusal an exception stands for; None for a crash (the service's fault: 500).

    ``max_body_kb`` and ``rate_retry`` word the body-size and rate-limit refusals (the app's
    ``MAX_CONTENT_LENGTH``, and the seconds the broken rate limit still holds).
    """
    if isinstance(error, Refusal):
        return error
    if isinstance(error, CSRFError):
        why = reworded(str(error.description), _, CSRF_REASONS)
        return Refusal(
            400, "csrf", _("the form was stale or forged (%(why)s); reload the page") % {"why": why}
        )
    if isinstance(error, RequestEntityTooLarge):
        return Refusal(413, "too_large", _("the request is larger than %(kb)s KB") % {"kb": max_body_kb})
    if isinstance(error, RateLimitExceeded):
        return Refusal(
            429,
            "rate_limited",
            _("too many requests (%(limit)s); slow down") % {"limit": error.description},
            rate_retry,
        )
    if isinstance(error, HTTPException):
        status = error.code or 500
        return Refusal(status, HTTP_CODES.get(status, "error"), error.description or "")
    return None
