"""The service's tables, as SQLAlchemy 2 typed models. Alembic (``../migrations``) creates them.

Who is who::

    User(issuer, subject)      unique pair: issuer "local" for menace's own tokens, or an
                               LTI platform's issuer with the launch's ``sub``
    Context(issuer, key)       a course: "local"/"local" for the service's own, or an LTI
                               platform's context id
    Membership(user, context)  the user's role there: learner or instructor
    Token                      a local user's API token, stored as its SHA-256 only
    LoginLink                  a one-time sign-in link for a browser, stored hashed too

What was checked::

    Attempt                    one submission: stored (source, digest, time, student) before
                               it is acknowledged; its report is written once, by its id

An anonymous attempt (``menace serve --open``) has no user: it counts for no grade.
A context never sees another's data: every query of attempts names its context.
"""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Enum, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

from menace_course.models import SubmissionReport

#: The issuer of users, contexts and tokens the service makes itself.
LOCAL = "local"


def now() -> datetime:
    """The current time, timezone-aware (UTC)."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and read back timezone-aware, on SQLite as on PostgreSQL."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        """Store in UTC (a naive value is taken to be UTC)."""
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        """SQLite forgets the zone: give it back."""
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Role(enum.StrEnum):
    """What a user may do in a context."""

    LEARNER = "learner"  #: checks their own work and sees their own attempts
    INSTRUCTOR = "instructor"  #: also sees the class table and every attempt of the context


class AttemptStatus(enum.StrEnum):
    """Where an attempt is: waiting for a grader, being checked, or checked."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"


def _enum(kind: type[enum.StrEnum]) -> Enum:
    """A column holding the enum's values (``"queued"``), checked by the database too."""
    return Enum(
        kind,
        native_enum=False,
        length=20,
        create_constraint=True,
        name=f"ck_{kind.__name__.lower()}",
        values_callable=lambda members: [m.value for m in members],
    )


class Base(DeclarativeBase):
    """The models' common base (its metadata is what the migrations must match)."""


class User(Base):
    """A person, as an issuer knows them."""

    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("issuer", "subject", name="uq_users_issuer_subject"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    subject: Mapped[str] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=now)
    #: Raised when the user is revoked: browser sessions from before stop working.
    session_epoch: Mapped[int] = mapped_column(Integer, default=0)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)

    memberships: Mapped[list[Membership]] = relationship(back_populates="user")


class Context(Base):
    """A course the service serves: ``local`` for its own, or one per LTI context."""

    __tablename__ = "contexts"
    __table_args__ = (UniqueConstraint("issuer", "key", name="uq_contexts_issuer_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    key: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(255), default="")


class Membership(Base):
    """A user's role in a context."""

    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("user_id", "context_id", name="uq_memberships_user_context"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    role: Mapped[Role] = mapped_column(_enum(Role))

    user: Mapped[User] = relationship(back_populates="memberships")
    context: Mapped[Context] = relationship()


class Token(Base):
    """An API token of a local user. Only its SHA-256 is kept; the token is shown once."""

    __tablename__ = "tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=now)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)

    user: Mapped[User] = relationship()


class LoginLink(Base):
    """A one-time browser sign-in link: used once, or expired, it opens nothing."""

    __tablename__ = "login_links"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=now)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)

    user: Mapped[User] = relationship()


class Attempt(Base):
    """One submission to one challenge, and (once checked) its report.

    ``report`` is exactly what ``menace check --format json`` prints for the file.
    """

    __tablename__ = "attempts"
    __table_args__ = (
        Index("ix_attempts_class", "context_id", "challenge", "user_id", "created_at"),
        Index("ix_attempts_status", "status"),
        Index("ix_attempts_lane", "lane", "status"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)  #: a UUID4, as text
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    challenge: Mapped[str] = mapped_column(String(64))
    filename: Mapped[str] = mapped_column(String(255))
    source: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=now)
    status: Mapped[AttemptStatus] = mapped_column(_enum(AttemptStatus), default=AttemptStatus.QUEUED)
    #: How many times a grader started on it (more than 1 after a crash and a re-run).
    runs: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    report: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    score: Mapped[float | None] = mapped_column(Float, default=None)
    max_score: Mapped[float | None] = mapped_column(Float, default=None)
    #: Whose turn it waits for: ``user:ID``, or ``addr:HASH`` for an anonymous address
    #: (what the per-student limit counts; see :mod:`~menace_course.service.db.attempts`).
    lane: Mapped[str | None] = mapped_column(String(80), default=None)
    #: The id of the web request that made it (``X-Request-Id``), for the log lines of its
    #: check, however it reaches a grader (see ``docs/deploy.md``, request ids).
    request_id: Mapped[str | None] = mapped_column(String(128), default=None)

    user: Mapped[User | None] = relationship()
    context: Mapped[Context] = relationship()

    @property
    def checked(self) -> SubmissionReport | None:
        """The report once the attempt is done, typed again (the column holds its ``to_dict()``)."""
        if self.status is not AttemptStatus.DONE or self.report is None:
            return None
        return SubmissionReport.from_dict(self.report)


class StoredValue(Base):
    """A value the service made itself and keeps (e.g. the key that signs session cookies)."""

    __tablename__ = "settings"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
