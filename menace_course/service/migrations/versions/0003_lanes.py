"""Attempts remember whose lane they wait in (``user:ID``, or a hash of an anonymous address).

The lane is what the per-student limit counts and what the fair dispatcher rotates over
(issue 22); attempts made before it have none, and count for nobody.

Revision ID: 0003_lanes
Revises: 0002_lti
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_lanes"
down_revision = "0002_lti"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("attempts") as table:
        table.add_column(sa.Column("lane", sa.String(80), nullable=True))
        table.create_index("ix_attempts_lane", ["lane", "status"])


def downgrade() -> None:
    with op.batch_alter_table("attempts") as table:
        table.drop_index("ix_attempts_lane")
        table.drop_column("lane")
