"""Everything the service can be told, in one frozen value: :class:`ServiceConfig`.

``menace serve`` builds it from its options; tests build it directly. Nothing reads
settings from anywhere else, so what a running service does is what this value says.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from menace_course.models import SandboxKind

#: Where the service keeps its state inside the course folder (the course files themselves
#: are only read).
STATE_DIR = ".menace"
DB_FILE = "service.sqlite3"


def default_db_url(course_root: Path) -> str:
    """The embedded default: an SQLite file in ``<course>/.menace/``."""
    return f"sqlite:///{course_root / STATE_DIR / DB_FILE}"


def default_workers() -> int:
    """One grader process per CPU this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


@dataclass(frozen=True)
class ServiceConfig:
    """How one service runs. Every field has the default ``menace serve`` uses."""

    course: Path  #: the course folder (read only)
    db_url: str = ""  #: SQLAlchemy URL; empty means :func:`default_db_url`
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = field(default_factory=default_workers)  #: grader processes
    threads: int = 64  #: request threads of the web process (each ``?wait`` holds one)
    open: bool = False  #: anonymous practice allowed (stored without identity, no grade)
    sandbox: SandboxKind = "bwrap"
    #: Checks waiting for a grader before new ones get 429.
    max_queue: int = 200
    #: Checks one student (or, anonymous, one address) may have waiting or running at once.
    per_user_queued: int = 3
    #: Checks all anonymous visitors (``open``) together may have waiting or running: they
    #: share one lane of the fair dispatcher, and this bounds it.
    open_queue: int = 50
    #: Flask-Limiter syntax; applies per student (per address when anonymous).
    rate_limit: str = "30 per minute"
    #: Wall clock for one check in a grader process, start to report. Beyond it the grader
    #: process is killed and the attempt gets a grader error (the sandbox's own limits,
    #: 5 s to load and 20 s for all calls, end a student's slow code well before).
    check_seconds: float = 60.0
    #: Longest ``?wait=`` a request may ask for.
    max_wait_seconds: float = 30.0
    #: Largest request body (a submission, as JSON).
    max_body_bytes: int = 1024 * 1024
    #: Trust one reverse proxy's X-Forwarded-* headers (scheme, host, client address).
    behind_proxy: bool = False
    #: The addresses (or networks) the reverse proxy connects from: only their forwarded
    #: headers are believed (``--trusted-proxy``; default a proxy on this machine).
    trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1")
    #: The address students use (for login links); empty means the request's own.
    public_url: str = ""
    #: Who runs the checks: ``local`` (this machine's grader processes) or ``procrastinate``
    #: (``menace worker`` processes anywhere, through a queue in PostgreSQL; see docs/scaling.md).
    queue: str = "local"
    #: The PostgreSQL database of the procrastinate queue; empty means the service's own.
    broker_url: str = ""
    #: Web processes (gunicorn workers). More than one only with the procrastinate queue,
    #: whose state is all in PostgreSQL (the local pool lives in its one process).
    web_processes: int = 1

    @property
    def database_url(self) -> str:
        """The SQLAlchemy URL in force."""
        return self.db_url or default_db_url(self.course)

    @property
    def state_dir(self) -> Path:
        """The service's own folder in the course (its SQLite file lives here by default)."""
        return self.course / STATE_DIR
