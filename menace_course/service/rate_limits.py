"""Per-user rate limits (Flask-Limiter): checks per minute, and sign-in attempts per address.

A signed-in student is limited by their user id, wherever they connect from; an
anonymous visitor by their address (behind a reverse proxy, ``--behind-proxy`` makes that
the client's, not the proxy's). Limits are counted in this process's memory, which is
right for the one web process ``menace serve`` runs.

``Retry-After`` is sent on a 429 (and on a check whose wait was refused: see
:mod:`.dispatch.waits`), and says when *that* refusal ends: the rate
limit's window (:func:`seconds_until_allowed`), or the seconds the queue or the student's
own waiting checks need (set by whoever refused). Flask-Limiter's own headers are off,
because it would put ``Retry-After`` on every answer, a 202 included, and stretch a
2-second "too many checks waiting" to the end of the rate-limit window.

:func:`runs_code` holds an endpoint of another blueprint that runs a student's code (the
lesson page's program runner) to the rules of a check: signed in (or ``--open``), and the
same per-student rate limit. When checks go to ``menace worker`` processes (``--queue
procrastinate``), the web process runs no check, so such an endpoint answers 503 and says
where the programs can be run instead (:data:`NO_CODE_HERE`), unless its view says it runs
in the web process with slots of its own (:data:`RUNS_IN_WEB_PROCESS`, the lesson's
programs: a few seconds each, a bounded number at once in each process).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from flask import current_app, request
from flask_limiter import Limiter

from menace_course.service.languages import gettext as _
from menace_course.service.refusal import Refusal

#: Sign-in forms and links, per address (tokens are unguessable; this only keeps noise down).
LOGIN_LIMIT = "20 per minute"

#: Why an endpoint that runs code is refused when the checks run on workers (issue 11: the
#: web process only accepts, stores and answers).
NO_CODE_HERE = (
    "this service runs students' code only on its check workers, and the lesson's programs are "
    "not sent there: run them on your own computer with `menace step N` (checks still work here)"
)


#: The attribute a view sets (to True) to say it runs student code in the web process
#: itself, in the sandbox and in slots of its own, so it works with check workers too.
RUNS_IN_WEB_PROCESS = "runs_in_web_process"


def rate_key() -> str:
    """Whom a request counts against: the user, else the client's address."""
    from menace_course.service.auth import AuthError, who

    try:
        person = who()
    except AuthError:
        person = None
    if person is not None and person.user_id is not None:
        return f"user:{person.user_id}"
    return f"addr:{request.remote_addr or '?'}"


def submission_limit() -> str:
    """The checks-per-time limit in force (``menace serve --rate-limit``)."""
    limit: str = current_app.config["MENACE"].rate_limit
    return limit


limiter = Limiter(key_func=rate_key, storage_uri="memory://", headers_enabled=False, strategy="moving-window")


def seconds_until_allowed() -> int:
    """After a 429 of the rate limit: whole seconds until the limit lets one more request in."""
    breached = limiter.current_limit
    if breached is None:
        return 60
    return max(1, int(breached.reset_at - time.time()))


@functools.cache
def runs_code(view: Callable[..., Any]) -> Callable[..., Any]:
    """``view``, refused to anonymous visitors (unless ``--open``) and rate-limited as a check;
    refused to everyone when checks run on workers, not in this process.

    Made once per view function (cached), so its limit is registered once however many apps
    a process creates.
    """
    from menace_course.service.auth import AuthError, require_checker

    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        here = getattr(view, RUNS_IN_WEB_PROCESS, False) is True
        if current_app.extensions["menace"].config.queue != "local" and not here:
            raise Refusal(503, "no_code_here", NO_CODE_HERE)
        try:
            require_checker()
        except AuthError as error:
            if error.status == 401:
                raise AuthError(
                    401, _("sign in to run programs here (with the token or link your instructor gave you)")
                ) from None
            raise
        return view(*args, **kwargs)

    limited: Callable[..., Any] = limiter.limit(submission_limit)(guarded)
    return limited


#: Requests to the lesson widget's endpoint, per student (per address when anonymous): a
#: person clicking squares makes one a move.
WIDGET_REQUESTS = "120 per minute"
#: Games the widget's endpoint plays (replays included) per student or address: about
#: 1.5 s of the web process's CPU a minute at most, whatever the requests ask for.
WIDGET_GAMES = "20000 per minute"


def _widget_cost() -> int:
    from menace_course.service.lesson.widget import cost_of

    try:
        body = request.get_json(silent=True)
    except Exception:  # too deep to parse: refused as malformed a moment later (.inputs)
        body = None
    return cost_of(body)


@functools.cache
def widget_limited(view: Callable[..., Any]) -> Callable[..., Any]:
    """The lesson widget's view, held to :data:`WIDGET_REQUESTS` and :data:`WIDGET_GAMES`.

    Its games run in the web process (not the sandbox: they are the server's own engine),
    so the limit counts the games each request asks for, not just the requests.
    """
    limited: Callable[..., Any] = limiter.limit(WIDGET_GAMES, cost=_widget_cost)(
        limiter.limit(WIDGET_REQUESTS)(view)
    )
    return limited
