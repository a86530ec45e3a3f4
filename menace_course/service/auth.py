"""Who is asking: a bearer token, a browser session, or (with ``--open``) nobody in particular.

Every request gets one :class:`Who`, worked out once (:func:`who`):

- ``Authorization: Bearer mc_...``: a local user's token (``menace users add``);
- the session cookie, set by ``/login`` (a token pasted in a form), a one-time login link
  (``menace users link``), or an LTI launch (:func:`sign_in` is the one way in for all);
- otherwise anonymous, which may check only when the service runs with ``--open``.

A session holds the user's id, their context and the user's ``session_epoch``; signing
out or revoking a user raises the epoch, which ends every session they had (a copied
cookie included: :func:`sign_out`). The JSON API takes the
cookie too (the page's script uses it), but then, like every form, only with the CSRF
token (header ``X-CSRFToken``): a bearer token cannot be sent by another site, a cookie can.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, g, request, session
from flask_wtf.csrf import CSRFError, validate_csrf
from wtforms import ValidationError

from menace_course.service.db.people import role_in, token_holder
from menace_course.service.db.tables import Role, User
from menace_course.service.languages import gettext as _
from menace_course.service.refusal import CSRF_REASONS, Refusal
from menace_course.service.state import state
from menace_course.wording import reworded

#: Anonymous attempts a browser remembers (``--open``).
ANONYMOUS_KEPT = 20


@dataclass(frozen=True)
class Who:
    """The person behind a request, and what they may do in which context."""

    user_id: int | None
    name: str | None
    context_id: int
    role: Role | None  #: None for an anonymous visitor
    via: str  #: ``token``, ``session`` or ``anonymous``

    @property
    def signed_in(self) -> bool:
        """True for a known user."""
        return self.user_id is not None

    @property
    def is_instructor(self) -> bool:
        """True when the user teaches this context."""
        return self.role is Role.INSTRUCTOR

    def may_see(self, owner_id: int | None, context_id: int) -> bool:
        """May this person see an attempt by ``owner_id`` in ``context_id``?

        Their own, or any in a context they teach. An anonymous attempt is seen by whoever
        holds its id (an unguessable UUID, kept in the browser's own session).
        """
        if context_id != self.context_id:
            return False
        if owner_id is None:
            return True
        return owner_id == self.user_id or self.is_instructor


class AuthError(Refusal):
    """The request's credentials are missing (401), not good enough (403), or replaced (409)."""

    def __init__(self, status: int, message: str) -> None:
        """The refusal of this status (its code follows from it: ``forbidden`` for a 403)."""
        code = {401: "unauthorized", 409: "signed_in_as_someone_else"}.get(status, "forbidden")
        super().__init__(status, code, message)


def _anonymous() -> Who:
    return Who(None, None, state().local_context_id, None, "anonymous")


def _from_token(token: str) -> Who:
    context_id = state().local_context_id
    with state().db.reading() as db:
        holder = token_holder(db, token, context_id)
    if holder is None:
        raise AuthError(
            401, _("this token is not valid (revoked, or mistyped): ask your instructor for a new one")
        )
    return Who(holder.user_id, holder.name, context_id, holder.role, "token")


def _from_session() -> Who | None:
    user_id, epoch, context_id = session.get("uid"), session.get("epoch"), session.get("ctx")
    if not isinstance(user_id, int) or not isinstance(context_id, int):
        return None
    with state().db.reading() as db:
        user = db.get(User, user_id)
        if user is None or user.revoked_at is not None or user.session_epoch != epoch:
            session.clear()
            return None
        return Who(user.id, user.name, context_id, role_in(db, user.id, context_id), "session")


def who() -> Who:
    """The person behind the current request, worked out once per request.

    The rate limit's key (:func:`~.rate_limits.rate_key`), the view and the error page all
    ask; the first answer is kept on ``flask.g`` for the rest of the request, a refusal
    too (a bad token is looked up once, and refused again with the same words wherever
    it is asked).

    Raises:
        AuthError: a bearer token was given and it is not valid.
    """
    found: Who | None = g.get("menace_who")
    if found is not None:
        return found
    refused: AuthError | None = g.get("menace_who_refused")
    if refused is not None:
        raise AuthError(refused.status, refused.message)
    try:
        found = _resolve()
    except AuthError as error:
        g.menace_who_refused = error
        raise
    g.menace_who = found
    return found


def _resolve() -> Who:
    """Who sent the request, from its Authorization header or its session (see :func:`who`)."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _space, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthError(401, _("the Authorization header must be 'Bearer <token>'"))
        return _from_token(token.strip())
    return _from_session() or _anonymous()


def require_checker() -> Who:
    """The person, if they may run a check (signed in, or anyone when the service is open)."""
    person = who()
    if not person.signed_in and not current_app.config["MENACE"].open:
        raise AuthError(
            401, _("sign in first: send 'Authorization: Bearer <token>' (menace users add gives one)")
        )
    return person


def require_instructor() -> Who:
    """The person, if they teach the context."""
    person = who()
    if not person.signed_in:
        raise AuthError(401, _("sign in with an instructor token first"))
    if not person.is_instructor:
        raise AuthError(403, _("only an instructor of this course may see this"))
    return person


def check_csrf_for_cookie() -> None:
    """For an API write that carries the session cookie, demand the page's CSRF token.

    A bearer token, or no credentials at all, needs none: only a cookie is sent by the
    browser on another site's behalf.
    """
    if request.headers.get("Authorization") or request.method in ("GET", "HEAD", "OPTIONS"):
        return
    if current_app.config["SESSION_COOKIE_NAME"] not in request.cookies:
        return
    try:
        validate_csrf(request.headers.get("X-CSRFToken", ""))
    except (ValidationError, CSRFError) as error:
        other = replaced(request.headers.get("X-Signed-In-As"), who())
        if other is not None:
            raise AuthError(409, other) from error
        why = reworded(str(error), _, CSRF_REASONS)
        raise AuthError(
            403, _("missing or stale CSRF token (reload the page): %(why)s") % {"why": why}
        ) from error


def replaced(sent: str | None, person: Who | None) -> str | None:
    """When a page made for user ``sent`` posts while the browser is signed in as ``person``: why.

    One browser holds one session. A second sign-in in it (most often a second LMS launch,
    as another person, in another tab) replaces the first, and the first person's tab then
    sends a form whose CSRF token belongs to the replaced session. This says what happened
    and how to go on, instead of "stale or forged". Pages send ``signed_in_as`` (a form
    field, or the header ``X-Signed-In-As`` from the page's script).
    """
    if not sent or person is None or not person.signed_in or sent == str(person.user_id):
        return None
    return _(
        "this page was opened by someone else: this browser is now signed in as %(name)s, "
        "because a later sign-in (or an LMS launch) in this browser replaced the earlier one. "
        "Nothing was checked. To go on as %(name)s, reload the page; to check as the earlier "
        "person, open the activity again from the LMS as them. One browser holds one person at a "
        "time: for two at once, use a second browser or a private window"
    ) % {"name": person.name}


def sign_in(user: User, context_id: int) -> None:
    """Start a browser session for ``user`` in ``context_id`` (login form, login link or LTI launch)."""
    session.clear()
    session["uid"] = user.id
    session["epoch"] = user.session_epoch
    session["ctx"] = context_id
    session.permanent = True


def anonymous_ids() -> list[str]:
    """The attempts this browser made without signing in (``--open``), newest first."""
    ids = session.get("anon", [])
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def remember_anonymous(attempt_id: str) -> None:
    """Keep an anonymous attempt's id in this browser's session (the last :data:`ANONYMOUS_KEPT`)."""
    session["anon"] = [attempt_id, *anonymous_ids()][:ANONYMOUS_KEPT]


def sign_out() -> None:
    """End the browser session, on the server too: the user's session epoch moves on.

    A session cookie is signed, not stored, so clearing it in this browser alone would
    leave a copy of it (taken from the browser, a proxy or a shared computer) working for
    its 30 days. Raising the epoch ends every session the user had, this one and any copy
    (and their other browsers: signing out signs out everywhere).
    """
    user_id, epoch = session.get("uid"), session.get("epoch")
    session.clear()
    if not isinstance(user_id, int):
        return
    with state().db.writing() as db:
        user = db.get(User, user_id)
        if user is not None and user.session_epoch == epoch:
            user.session_epoch += 1
