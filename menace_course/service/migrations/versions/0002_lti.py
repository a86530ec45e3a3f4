"""LTI 1.3: registered platforms and deployments, pylti1p3's launch store, the passback queue.

Revision ID: 0002_lti
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_lti"
down_revision = "0001"
branch_labels = None
depends_on = None


def _when(name: str, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("auth_login_url", sa.String(1024), nullable=False),
        sa.Column("auth_token_url", sa.String(1024), nullable=False),
        sa.Column("auth_audience", sa.String(1024), nullable=True),
        sa.Column("key_set_url", sa.String(1024), nullable=False),
        _when("created_at"),
        sa.UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),
    )
    op.create_table(
        "lti_deployments",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "platform_id", sa.Integer(), sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployments_platform_deployment"),
    )
    op.create_table(
        "lti_store",
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("value", sa.JSON(), nullable=False),
        _when("expires_at"),
    )
    op.create_index("ix_lti_store_expires", "lti_store", ["expires_at"])
    op.create_table(
        "lti_outcomes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column(
            "context_id", sa.Integer(), sa.ForeignKey("contexts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "platform_id", sa.Integer(), sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.Column("resource_link_id", sa.String(255), nullable=False),
        sa.Column("challenge", sa.String(64), nullable=False),
        sa.Column("lineitem_url", sa.String(1024), nullable=True),
        sa.Column("lineitems_url", sa.String(1024), nullable=True),
        sa.Column("scopes", sa.JSON(), nullable=False),
        sa.Column("wanted", sa.Integer(), nullable=False),
        sa.Column("sent", sa.Integer(), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        _when("next_try_at", nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        _when("sent_at", nullable=True),
        sa.Column("sent_score", sa.Float(), nullable=True),
        sa.Column("sent_max", sa.Float(), nullable=True),
        _when("updated_at"),
        sa.UniqueConstraint("user_id", "context_id", "resource_link_id", name="uq_lti_outcomes_user_link"),
    )
    op.create_index("ix_lti_outcomes_due", "lti_outcomes", ["next_try_at"])
    op.create_index("ix_lti_outcomes_class", "lti_outcomes", ["context_id", "challenge"])


def downgrade() -> None:
    for table in ("lti_outcomes", "lti_store", "lti_deployments", "lti_platforms"):
        op.drop_table(table)
