"""The first tables: users, contexts, memberships, tokens, login links, attempts, settings.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _when(name: str, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _enum(name: str, *values: str) -> sa.Enum:
    return sa.Enum(*values, name=name, native_enum=False, length=20, create_constraint=True)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        _when("created_at"),
        sa.Column("session_epoch", sa.Integer(), nullable=False),
        _when("revoked_at", nullable=True),
        sa.UniqueConstraint("issuer", "subject", name="uq_users_issuer_subject"),
    )
    op.create_table(
        "contexts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("title", sa.String(255), nullable=False),
        sa.UniqueConstraint("issuer", "key", name="uq_contexts_issuer_key"),
    )
    op.create_table(
        "settings",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )
    op.create_table(
        "memberships",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column(
            "context_id", sa.Integer(), sa.ForeignKey("contexts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("role", _enum("ck_role", "learner", "instructor"), nullable=False),
        sa.UniqueConstraint("user_id", "context_id", name="uq_memberships_user_context"),
    )
    for table in ("tokens", "login_links"):
        op.create_table(
            table,
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
            sa.Column("digest", sa.String(64), nullable=False, unique=True),
            _when("created_at"),
            *([_when("expires_at"), _when("used_at", nullable=True)] if table == "login_links" else []),
            *([_when("revoked_at", nullable=True)] if table == "tokens" else []),
        )
        op.create_index(f"ix_{table}_user_id", table, ["user_id"])
    op.create_table(
        "attempts",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column(
            "context_id", sa.Integer(), sa.ForeignKey("contexts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("challenge", sa.String(64), nullable=False),
        sa.Column("filename", sa.String(255), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        _when("created_at"),
        sa.Column("status", _enum("ck_attemptstatus", "queued", "running", "done"), nullable=False),
        sa.Column("runs", sa.Integer(), nullable=False),
        _when("started_at", nullable=True),
        _when("finished_at", nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("max_score", sa.Float(), nullable=True),
    )
    op.create_index("ix_attempts_class", "attempts", ["context_id", "challenge", "user_id", "created_at"])
    op.create_index("ix_attempts_status", "attempts", ["status"])


def downgrade() -> None:
    for table in ("attempts", "login_links", "tokens", "memberships", "settings", "contexts", "users"):
        op.drop_table(table)
