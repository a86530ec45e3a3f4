"""Per-user rate limits (Flask-Limiter): checks per minute, and sign-in attempts per address.

A signed-in student is limited by their user id, wherever they connect from; an
anonymous visitor by their address (behind a reverse proxy, ``--behind-proxy`` makes that
the client's, not the proxy's). Limits are counted in this process's memory, which is
right for the one web process ``menace serve`` runs.
"""

from __future__ import annotations

from flask import current_app, request
from flask_limiter import Limiter

#: Sign-in forms and links, per address (tokens are unguessable; this only keeps noise down).
LOGIN_LIMIT = "20 per minute"


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
    limit: str = current_app.config["MENACE_RATE_LIMIT"]
    return limit


limiter = Limiter(key_func=rate_key, storage_uri="memory://", headers_enabled=True, strategy="moving-window")
