"""Who is who: local users and their tokens, one-time login links, contexts and roles.

A token is ``mc_`` and 43 random URL-safe characters (256 bits). Only its SHA-256 is
stored, so a copy of the database lets nobody sign in; a lost token is replaced, never
shown again. Tokens are random enough that a fast hash is the right one (a slow password
hash protects guessable secrets, which these are not).

LTI (issue 12) adds users under a platform's issuer and contexts per LTI course through
:func:`user_for` and :func:`context_for`; nothing here assumes the ``local`` issuer but the
token and link helpers, which are for the service's own users.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, bindparam, func, select, update
from sqlalchemy.orm import Session

from menace_course.service.db.tables import (
    LOCAL,
    Attempt,
    Context,
    LoginLink,
    Membership,
    Role,
    Token,
    User,
    now,
)

TOKEN_PREFIX = "mc_"
LINK_DAYS = 7


def digest(secret: str) -> str:
    """The SHA-256 (hex) under which a token or a link's code is stored."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    """A fresh token or link code."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def context_for(session: Session, issuer: str = LOCAL, key: str = LOCAL, title: str = "") -> Context:
    """The context (course) ``(issuer, key)``, created on first use."""
    context = session.scalar(select(Context).where(Context.issuer == issuer, Context.key == key))
    if context is None:
        context = Context(issuer=issuer, key=key, title=title or key)
        session.add(context)
        session.flush()
    elif title and context.title != title:
        context.title = title
    return context


def user_for(session: Session, issuer: str, subject: str, name: str) -> User:
    """The user ``(issuer, subject)``, created on first use; their name follows the issuer's."""
    user = session.scalar(select(User).where(User.issuer == issuer, User.subject == subject))
    if user is None:
        user = User(issuer=issuer, subject=subject, name=name)
        session.add(user)
        session.flush()
    elif name and user.name != name:
        user.name = name
    return user


def set_role(session: Session, user: User, context: Context, role: Role) -> Membership:
    """Give ``user`` the role ``role`` in ``context`` (replacing the one they had there)."""
    membership = session.scalar(
        select(Membership).where(Membership.user_id == user.id, Membership.context_id == context.id)
    )
    if membership is None:
        membership = Membership(user_id=user.id, context_id=context.id, role=role)
        session.add(membership)
        session.flush()
    else:
        membership.role = role
    return membership


#: A user's role in a context (parameters ``user`` and ``context``): asked by every request
#: that signs in, so built once (see :mod:`.attempts` on why).
_ROLE_IN = select(Membership.role).where(
    Membership.user_id == bindparam("user"), Membership.context_id == bindparam("context")
)


def role_in(session: Session, user_id: int, context_id: int) -> Role | None:
    """The user's role in the context, or None when they are not a member."""
    role: Role | None = session.scalar(_ROLE_IN, {"user": user_id, "context": context_id})
    return role


def local_user(session: Session, name: str) -> User | None:
    """The local user called ``name``, if there is one."""
    return session.scalar(select(User).where(User.issuer == LOCAL, User.subject == name))


def add_local_user(session: Session, name: str, role: Role) -> tuple[User, str]:
    """Create (or reinstate) the local user ``name`` with a new token; return it once.

    A user who was revoked is reinstated with a new token; their attempts are kept.
    """
    user = user_for(session, LOCAL, name, name)
    user.revoked_at = None
    set_role(session, user, context_for(session), role)
    token = new_secret()
    session.add(Token(user_id=user.id, digest=digest(token)))
    return user, token


def revoke(session: Session, user: User) -> int:
    """Revoke every token and login link of ``user`` and end their browser sessions.

    Returns how many tokens were revoked.
    """
    when = now()
    user.revoked_at = when
    user.session_epoch += 1
    done = session.execute(
        update(Token).where(Token.user_id == user.id, Token.revoked_at.is_(None)).values(revoked_at=when)
    )
    session.execute(
        update(LoginLink)
        .where(LoginLink.user_id == user.id, LoginLink.used_at.is_(None))
        .values(used_at=when)
    )
    return int(getattr(done, "rowcount", 0) or 0)


#: The user of a token's digest (parameter ``token_digest``), unless either is revoked.
_USER_BY_TOKEN = (
    select(User)
    .join(Token, Token.user_id == User.id)
    .where(Token.digest == bindparam("token_digest"), Token.revoked_at.is_(None), User.revoked_at.is_(None))
)


def user_by_token(session: Session, token: str) -> User | None:
    """The user a token belongs to, if the token is known and not revoked."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    user: User | None = session.scalar(_USER_BY_TOKEN, {"token_digest": digest(token)})
    return user


@dataclass(frozen=True)
class TokenHolder:
    """Who holds a token, and their role in the context asked about (None: not a member)."""

    user_id: int
    name: str
    role: Role | None


#: A token's holder and their role in a context (parameters ``token_digest`` and ``context``):
#: what every request with a token asks, in one statement.
_TOKEN_HOLDER = (
    select(User.id, User.name, Membership.role)
    .join(Token, Token.user_id == User.id)
    .outerjoin(Membership, and_(Membership.user_id == User.id, Membership.context_id == bindparam("context")))
    .where(Token.digest == bindparam("token_digest"), Token.revoked_at.is_(None), User.revoked_at.is_(None))
)


def token_holder(session: Session, token: str, context_id: int) -> TokenHolder | None:
    """:func:`user_by_token` and :func:`role_in` in one query, for a request's authentication."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = session.execute(_TOKEN_HOLDER, {"token_digest": digest(token), "context": context_id}).first()
    return None if row is None else TokenHolder(row.id, row.name, row.role)


def new_login_link(session: Session, user: User, days: int = LINK_DAYS) -> str:
    """A one-time code for ``/login/<code>``, valid for ``days`` days."""
    code = new_secret()
    session.add(LoginLink(user_id=user.id, digest=digest(code), expires_at=now() + timedelta(days=days)))
    return code


def use_login_link(session: Session, code: str) -> User | None:
    """Spend a login link: its user if it was valid (unused, unexpired), else None."""
    if not code.startswith(TOKEN_PREFIX) or len(code) > 200:
        return None
    when = now()
    spent = session.execute(
        update(LoginLink)
        .where(LoginLink.digest == digest(code), LoginLink.used_at.is_(None), LoginLink.expires_at > when)
        .values(used_at=when)
        .returning(LoginLink.user_id)
    ).scalar()
    if spent is None:
        return None
    user = session.get(User, spent)
    return user if user is not None and user.revoked_at is None else None


def peek_login_link(session: Session, code: str) -> User | None:
    """The user a still-valid link would sign in, without spending it."""
    if not code.startswith(TOKEN_PREFIX) or len(code) > 200:
        return None
    return session.scalar(
        select(User)
        .join(LoginLink, LoginLink.user_id == User.id)
        .where(
            LoginLink.digest == digest(code),
            LoginLink.used_at.is_(None),
            LoginLink.expires_at > now(),
            User.revoked_at.is_(None),
        )
    )


@dataclass(frozen=True)
class UserRow:
    """One line of ``menace users list``."""

    name: str
    role: str
    active: bool
    tokens: int
    attempts: int
    last_attempt: datetime | None


def list_local_users(session: Session) -> list[UserRow]:
    """Every local user, by name, with their role, live tokens and attempts."""
    context = context_for(session)
    tokens = (
        select(Token.user_id, func.count().label("n"))
        .where(Token.revoked_at.is_(None))
        .group_by(Token.user_id)
        .subquery()
    )
    attempts = (
        select(Attempt.user_id, func.count().label("n"), func.max(Attempt.created_at).label("last"))
        .group_by(Attempt.user_id)
        .subquery()
    )
    rows = session.execute(
        select(User, Membership.role, tokens.c.n, attempts.c.n, attempts.c.last)
        .outerjoin(Membership, (Membership.user_id == User.id) & (Membership.context_id == context.id))
        .outerjoin(tokens, tokens.c.user_id == User.id)
        .outerjoin(attempts, attempts.c.user_id == User.id)
        .where(User.issuer == LOCAL)
        .order_by(User.subject)
    ).all()
    return [
        UserRow(
            name=user.subject,
            role=(role or Role.LEARNER).value,
            active=user.revoked_at is None,
            tokens=int(n_tokens or 0),
            attempts=int(n_attempts or 0),
            last_attempt=last,
        )
        for user, role, n_tokens, n_attempts, last in rows
    ]
