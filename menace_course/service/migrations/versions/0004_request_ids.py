"""Attempts remember the id of the web request that made them.

The sweep that gives an attempt a new job after it lost its own (a web process that died
between storing it and queueing it) queues it with this id, so that the worker's log
lines for that check name the same request as the web's. Attempts made before it have
none.

Revision ID: 0004_request_ids
Revises: 0003_lanes
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_request_ids"
down_revision = "0003_lanes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("attempts") as table:
        table.add_column(sa.Column("request_id", sa.String(128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("attempts") as table:
        table.drop_column("request_id")
