"""LTI's tables, beside the service's own (same :class:`~menace_course.service.db.tables.Base`).

::

    LtiPlatform(issuer, client_id)   one registration of the tool in an LMS: where its login,
                                     token and key-set endpoints are (unique pair: Canvas
                                     cloud has one issuer for every school, told apart by
                                     client id)
    LtiDeployment(platform, id)      a deployment of that registration (an account, a course);
                                     launches from any other deployment are refused
    LtiStoreEntry(key)               what pylti1p3 keeps between the login and the launch
                                     (state, nonce, launch data), each with an expiry
    LtiOutcome(user, context, link)  where a launched student's score goes (the launch's AGS
                                     claim), and whether it got there: the passback queue

Users and contexts are the service's own rows: an LTI user is ``User(issuer, sub)`` and a
course is ``Context(issuer, "<deployment>/<context id>")`` (see :mod:`.launch`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from menace_course.service.db.tables import Base, Context, User, UTCDateTime, now


class LtiPlatform(Base):
    """The tool as registered in one LMS (one issuer and client id)."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    auth_login_url: Mapped[str] = mapped_column(String(1024))
    auth_token_url: Mapped[str] = mapped_column(String(1024))
    #: The ``aud`` of the tool's client assertion, when the platform wants other than the
    #: token URL (rare; Moodle and Canvas use the token URL).
    auth_audience: Mapped[str | None] = mapped_column(String(1024), default=None)
    key_set_url: Mapped[str] = mapped_column(String(1024))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=now)

    deployments: Mapped[list[LtiDeployment]] = relationship(
        back_populates="platform", cascade="all, delete-orphan", order_by="LtiDeployment.deployment_id"
    )


class LtiDeployment(Base):
    """One deployment id the platform may launch with."""

    __tablename__ = "lti_deployments"
    __table_args__ = (
        UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployments_platform_deployment"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    deployment_id: Mapped[str] = mapped_column(String(255))

    platform: Mapped[LtiPlatform] = relationship(back_populates="deployments")


class LtiStoreEntry(Base):
    """One value pylti1p3 keeps between requests (state, nonce, launch data), until it expires."""

    __tablename__ = "lti_store"
    __table_args__ = (Index("ix_lti_store_expires", "expires_at"),)

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[Any] = mapped_column(JSON)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())


class LtiOutcome(Base):
    """Where one student's score for one resource link goes, and the state of sending it.

    Written at each resource-link launch (the AGS claim can change: the LMS may move the
    column). A finished check raises ``wanted``; the passback worker sends the score the
    challenge's policy picks and sets ``sent`` to the ``wanted`` it read, so a check that
    finishes while a score is on its way is sent next, and nothing is sent twice for one.
    """

    __tablename__ = "lti_outcomes"
    __table_args__ = (
        UniqueConstraint("user_id", "context_id", "resource_link_id", name="uq_lti_outcomes_user_link"),
        Index("ix_lti_outcomes_due", "next_try_at"),
        Index("ix_lti_outcomes_class", "context_id", "challenge"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    deployment_id: Mapped[str] = mapped_column(String(255))
    resource_link_id: Mapped[str] = mapped_column(String(255))
    challenge: Mapped[str] = mapped_column(String(64))
    #: The AGS claim of the latest launch: this link's column, the course's column list, and
    #: the scopes the platform granted.
    lineitem_url: Mapped[str | None] = mapped_column(String(1024), default=None)
    lineitems_url: Mapped[str | None] = mapped_column(String(1024), default=None)
    scopes: Mapped[list[str]] = mapped_column(JSON, default=list)
    #: Bumped by each finished check; the score is due while ``sent < wanted``.
    wanted: Mapped[int] = mapped_column(Integer, default=0)
    sent: Mapped[int] = mapped_column(Integer, default=0)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    next_try_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    last_error: Mapped[str | None] = mapped_column(Text, default=None)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    sent_score: Mapped[float | None] = mapped_column(Float, default=None)
    sent_max: Mapped[float | None] = mapped_column(Float, default=None)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=now, onupdate=now)

    user: Mapped[User] = relationship()
    context: Mapped[Context] = relationship()
    platform: Mapped[LtiPlatform] = relationship()

    @property
    def due(self) -> bool:
        """True while a score is waiting to be sent."""
        return self.sent < self.wanted
