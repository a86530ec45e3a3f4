"""Open the database: an engine tuned for SQLite or PostgreSQL, sessions, and the migrations.

:class:`Database` is what the rest of the service holds. ``db.reading()`` gives a session
for queries; ``db.writing()`` gives one that commits on success, and on SQLite takes the
write lock at its start (``BEGIN IMMEDIATE``) so two writers queue on the busy timeout
instead of failing with "database is locked" halfway through.

SQLite runs in WAL mode: readers never block the writer. A stored attempt is committed
with ``synchronous=FULL`` and survives a crash of the process *and* of the machine; a
check's progress is committed without waiting for the disk (see :meth:`Database.writing`).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DisconnectionError
from sqlalchemy.orm import Session, sessionmaker

from menace_course.errors import UsageError

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def normalize_url(url: str) -> URL:
    """Parse an SQLAlchemy URL; plain ``postgresql://`` means the psycopg (3) driver.

    Raises:
        UsageError: the URL is not one SQLAlchemy understands, or names another database.
    """
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise UsageError(
            f"--db {url!r} is not a database URL (e.g. sqlite:///path or postgresql://...)"
        ) from error
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise UsageError(f"--db {url!r}: the service runs on SQLite or PostgreSQL")
    return parsed


#: Where a pooled SQLite connection remembers the ``synchronous`` level it was last set to
#: (a connection's setting, kept across transactions: a write sets it only when it changes).
_SYNCHRONOUS = "menace_synchronous"


def _tune_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def connect(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.isolation_level = None  # we say BEGIN ourselves (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def begin(connection: Any) -> None:
        options = connection.get_execution_options()
        if options.get("immediate", False):
            synchronous = "FULL" if options.get("durable", True) else "NORMAL"
            if connection.info.get(_SYNCHRONOUS) != synchronous:  # kept per connection: set on change
                connection.exec_driver_sql(f"PRAGMA synchronous={synchronous}")
                connection.info[_SYNCHRONOUS] = synchronous
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            connection.exec_driver_sql("BEGIN")


def _prepare_sqlite_file(url: URL) -> None:
    """Create the database's folder, readable by this user only (it holds students' code)."""
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    folder = Path(database).expanduser().resolve().parent
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as error:
        raise UsageError(f"cannot create {folder} for the database: {error.strerror}") from error
    path = Path(database)
    if not path.exists():
        try:
            path.touch(mode=0o600)
        except OSError as error:
            raise UsageError(f"cannot create the database {path}: {error.strerror}") from error


def make_engine(url: str) -> Engine:
    """An engine for ``url`` (see the module's docstring for how SQLite is set up)."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        _prepare_sqlite_file(parsed)
        engine = create_engine(
            parsed, connect_args={"timeout": 30, "check_same_thread": False}, pool_size=16, max_overflow=48
        )
        _tune_sqlite(engine)
        return engine
    engine = create_engine(parsed, pool_size=16, max_overflow=48)
    _ping_idle_connections(engine)
    return engine


#: A pooled PostgreSQL connection unused for this long is tested before it is handed out.
PING_AFTER_IDLE_SECONDS = 10.0


def _ping_idle_connections(engine: Engine) -> None:
    """Test a pooled connection before use only when it has been idle a while.

    SQLAlchemy's ``pool_pre_ping`` tests every checkout: a ``SELECT 1`` and the rollback
    after it, two round trips, on each of the three or four checkouts of a request (1.2 ms
    against 0.04 ms per checkout, measured here). A connection used in the last
    :data:`PING_AFTER_IDLE_SECONDS` is alive but for a database restarted within those
    seconds; then the one request that meets a dead connection fails (500, "not your
    mistake"), and SQLAlchemy discards every connection older than that failure. An idle
    connection, the one a restart or a firewall's timeout leaves dead, is still tested,
    and replaced when the test fails.
    """

    @event.listens_for(engine.pool, "checkin")
    def checkin(dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine.pool, "checkout")
    def checkout(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < PING_AFTER_IDLE_SECONDS:
            return  # new, or in use a moment ago
        try:
            engine.dialect.do_ping(dbapi_connection)
            dbapi_connection.rollback()
        except Exception as error:  # any failure: the pool replaces this connection
            raise DisconnectionError(f"a pooled connection is dead: {error}") from error


class Database:
    """An engine and its two kinds of session (see the module's docstring)."""

    def __init__(self, url: str) -> None:
        """Connect lazily to ``url``; nothing is opened until the first query."""
        self.url = url
        self.engine = make_engine(url)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(self.engine.execution_options(immediate=True), expire_on_commit=False)
        self._write_fast = sessionmaker(
            self.engine.execution_options(immediate=True, durable=False), expire_on_commit=False
        )

    @property
    def is_sqlite(self) -> bool:
        """True for the embedded default."""
        return self.engine.dialect.name == "sqlite"

    @contextlib.contextmanager
    def reading(self) -> Iterator[Session]:
        """A session for queries; its transaction ends (rolled back) when the block does."""
        with self._read() as session:
            yield session

    @contextlib.contextmanager
    def writing(self, durable: bool = True) -> Iterator[Session]:
        """A session whose transaction commits when the block ends without an exception.

        ``durable=False`` is for what may be lost to a power cut (never to a crash of the
        process) because it is redone anyway: a check's progress, re-run from the stored
        attempt. The commit then does not wait for the disk (SQLite ``synchronous=NORMAL``
        in WAL mode, PostgreSQL ``synchronous_commit = off``); an attempt being stored is
        always durable.
        """
        with (self._write if durable else self._write_fast)() as session, session.begin():
            if not durable and not self.is_sqlite:
                session.execute(text("SET LOCAL synchronous_commit = off"))
            yield session

    def upgrade(self) -> None:
        """Bring the schema to the newest migration (creating the tables the first time)."""
        upgrade(self.engine)

    def dispose(self) -> None:
        """Close every pooled connection (e.g. in a process that was forked)."""
        self.engine.dispose()


def alembic_config(engine: Engine) -> Any:
    """An Alembic configuration that runs the package's migrations on ``engine``."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine) -> None:
    """Run every migration not yet applied."""
    from alembic import command

    command.upgrade(alembic_config(engine), "head")


def is_current(engine: Engine) -> bool:
    """True when the database has every migration (an empty database has none)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    heads = set(ScriptDirectory.from_config(alembic_config(engine)).get_heads())
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return False
        return set(MigrationContext.configure(connection).get_current_heads()) == heads


def describe(url: str) -> str:
    """The URL with any password hidden, for messages."""
    parsed = normalize_url(url)
    text: str = parsed.render_as_string(hide_password=True)
    return text.replace("postgresql+psycopg://", "postgresql://")


def sqlite_path(url: str) -> Path | None:
    """The file an SQLite URL names (None for PostgreSQL or an in-memory database)."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(os.path.expanduser(parsed.database))
