"""Alembic's entry point for the service's migrations (run by :func:`..db.engine.upgrade`).

The engine comes from the caller (``config.attributes["engine"]``), never from an ini file,
so the same migrations run on whatever database ``menace serve --db`` names. SQLite cannot
alter tables in place, so changes are rendered as batch operations (copy and swap).
"""

from __future__ import annotations

from alembic import context

import menace_course.service.lti.tables  # noqa: F401  (LTI's tables are in the same metadata)
from menace_course.service.db.tables import Base

engine = context.config.attributes["engine"]
with engine.connect() as connection:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()
