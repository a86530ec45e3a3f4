"""Everything the service can be told, in one frozen value: :class:`ServiceConfig`.

Each field is a setting and carries, in its metadata, a :class:`Setting`: its name, its
help and the commands that take it. From that one description come

- the command-line options of ``menace serve`` and ``menace worker`` (their defaults, types,
  bounds and help; :mod:`menace_course.commands.settings` makes the click options),
- the environment variable of each (``MENACE_`` and the name in capitals),
- the key of each in a ``--config FILE`` (TOML, read by
  :func:`~menace_course.service.config_file.read_file`),
- the table of settings in docs/deploy.md (:func:`settings_table`; a test compares them).

A value is taken from the first of: the command line, the environment, the config file,
the default here. Tests build the value directly. Nothing reads settings from anywhere
else, so what a running service does is what this value says.
"""

from __future__ import annotations

import os
import typing
from dataclasses import MISSING, Field, dataclass, field, fields
from pathlib import Path
from typing import Any

from menace_course.models import SandboxKind

#: Where the service keeps its state inside the course folder (the course files themselves
#: are only read).
STATE_DIR = ".menace"
DB_FILE = "service.sqlite3"
#: The commands that read settings.
COMMANDS = ("serve", "worker")


def default_db_url(course_root: Path) -> str:
    """The embedded default: an SQLite file in ``<course>/.menace/``."""
    return f"sqlite:///{course_root / STATE_DIR / DB_FILE}"


def default_workers() -> int:
    """One grader process per CPU this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


@dataclass(frozen=True)
class Setting:
    """What a field of :class:`ServiceConfig` is, for the command line, the environment and files."""

    name: str  #: the key in a config file; ``MENACE_<NAME>`` in the environment
    help: str
    commands: tuple[str, ...] = ("serve",)
    option: str = ""  #: the command-line option when not ``--name-with-dashes``
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    default_text: str = ""  #: the default in words, when it is worked out at start
    secret: bool = False  #: its default is never shown
    metavar: str = ""  #: what ``--help`` shows for its value; empty means from its type

    @property
    def env(self) -> str:
        """The environment variable that sets it."""
        return f"MENACE_{self.name.upper()}"

    @property
    def flag(self) -> str:
        """The command-line option that sets it."""
        return self.option or "--" + self.name.replace("_", "-")


def _setting(default: Any = MISSING, factory: Any = MISSING, **about: Any) -> Any:
    if factory is not MISSING:
        return field(default_factory=factory, metadata={"setting": Setting(**about)})
    return field(default=default, metadata={"setting": Setting(**about)})


BOTH = ("serve", "worker")


@dataclass(frozen=True)
class ServiceConfig:
    """How one service (``menace serve``) or worker (``menace worker``) runs."""

    course: Path = _setting(
        name="course",
        metavar="DIR",
        commands=BOTH,
        default_text="found from here upwards",
        help="The course folder, with its hidden tests (read only).",
    )
    db_url: str = _setting(
        "",
        name="db",
        metavar="URL",
        commands=BOTH,
        default_text="SQLite in COURSE/.menace/service.sqlite3",
        help="An SQLAlchemy database URL: sqlite:///PATH or postgresql://USER@HOST/NAME "
        "(menace worker: the service's PostgreSQL database).",
    )
    broker_url: str = _setting(
        "",
        name="broker",
        metavar="URL",
        commands=BOTH,
        default_text="the database",
        help="With queue procrastinate: the PostgreSQL database of the queue.",
    )
    host: str = _setting("127.0.0.1", name="host", metavar="ADDRESS", help="The address to listen on.")
    port: int = _setting(8000, name="port", minimum=0, maximum=65535, help="The port (0: any free one).")
    queue: str = _setting(
        "local",
        name="queue",
        choices=("local", "procrastinate"),
        help="Who runs the checks: this machine's graders (local), or `menace worker` processes on "
        "any machine, through a queue in PostgreSQL (procrastinate; needs a postgresql:// db). "
        "See docs/scaling.md.",
    )
    workers: int = _setting(
        factory=default_workers,
        name="workers",
        minimum=1,
        default_text="the CPUs",
        help="Grader processes, each checking one submission at a time (queue local only).",
    )
    web_processes: int = _setting(
        1,
        name="web_processes",
        minimum=1,
        help="With queue procrastinate: web processes answering requests (one uses about one core at "
        "50 checks/s; see docs/scaling.md). Rate limits are counted per process.",
    )
    open: bool = _setting(
        False,
        name="open",
        help="Let anyone check without signing in: such attempts are kept without a name and count "
        "for no grade.",
    )
    threads: int = _setting(
        64,
        name="threads",
        minimum=4,
        help="Request threads. Slow and idle connections hold none; a ?wait request holds one while it "
        "waits (each student at most per_student of them; an eighth of the threads never wait).",
    )
    max_queue: int = _setting(
        200,
        name="max_queue",
        minimum=1,
        help="Checks that may wait for a grader; more get 429 with Retry-After.",
    )
    per_user_queued: int = _setting(
        3, name="per_student", minimum=1, help="Checks one student may have waiting at once."
    )
    open_queue: int = _setting(
        50,
        name="open_queue",
        minimum=1,
        help="Checks all anonymous visitors (open) together may have waiting or running.",
    )
    rate_limit: str = _setting(
        "30 per minute",
        name="rate_limit",
        metavar="LIMIT",
        help="Checks per student (per address when anonymous), e.g. '10 per minute;100 per hour'.",
    )
    check_seconds: float = _setting(
        60.0,
        name="check_seconds",
        commands=BOTH,
        minimum=5,
        help="Wall clock for one whole check; past it the grader is replaced and the student told it "
        "was our fault.",
    )
    max_wait_seconds: float = _setting(
        30.0, name="max_wait_seconds", minimum=0, help="Longest ?wait= a request may ask for."
    )
    max_body_bytes: int = _setting(
        1024 * 1024,
        name="max_body_bytes",
        minimum=1024,
        help="Largest request body (a submission, as JSON), in bytes.",
    )
    sandbox: SandboxKind = _setting(
        "bwrap",
        name="sandbox",
        commands=BOTH,
        choices=("bwrap", "process"),
        help="bwrap isolates each submission; process does not (needs --i-accept-no-sandbox).",
    )
    behind_proxy: bool = _setting(
        False,
        name="behind_proxy",
        help="Trust one reverse proxy's X-Forwarded-For/-Proto/-Host and X-Request-Id (for client "
        "addresses, Secure cookies and request ids).",
    )
    trusted_proxies: tuple[str, ...] = _setting(
        ("127.0.0.1", "::1"),
        name="trusted_proxies",
        metavar="ADDRESS",
        option="--trusted-proxy",
        help="With behind_proxy: the addresses or networks the reverse proxy connects from "
        "(repeatable; in the environment, separated by spaces). Forwarded headers from any other "
        "peer are ignored.",
    )
    public_url: str = _setting(
        "",
        name="public_url",
        metavar="URL",
        default_text="the request's own",
        help="The address students use, e.g. https://menace.example.edu (for links; https makes "
        "cookies Secure).",
    )
    metrics_token: str = _setting(
        "",
        name="metrics_token",
        metavar="TOKEN",
        secret=True,
        commands=BOTH,
        default_text="none: only instructors",
        help="A bearer token that may read /metrics and the details of /healthz (e.g. from "
        "`openssl rand -hex 32`; set it in the environment, not on the command line). "
        "menace worker: the token its --metrics-port asks for (none: anyone who can connect).",
    )
    log_format: str = _setting(
        "text",
        name="log_format",
        commands=BOTH,
        choices=("text", "json"),
        help="Log lines as text, or one JSON object each (time, level, logger, message, request_id).",
    )
    concurrency: int = _setting(
        factory=default_workers,
        name="concurrency",
        commands=("worker",),
        minimum=1,
        default_text="the CPUs",
        help="Grader processes, so checks at once; each takes a CPU while it checks.",
    )
    worker_name: str = _setting(
        "",
        name="worker_name",
        metavar="NAME",
        option="--name",
        commands=("worker",),
        default_text="HOST:PID",
        help="This worker's name in logs.",
    )
    metrics_port: int = _setting(
        0,
        name="metrics_port",
        commands=("worker",),
        maximum=65535,
        minimum=0,
        default_text="0: no metrics",
        help="Serve this worker's Prometheus metrics (checks, latencies, graders busy, passback "
        "retries) at http://METRICS_HOST:PORT/metrics.",
    )
    metrics_host: str = _setting(
        "127.0.0.1",
        name="metrics_host",
        metavar="ADDRESS",
        commands=("worker",),
        help="The address --metrics-port listens on; another than the loopback wants a metrics_token.",
    )

    @property
    def database_url(self) -> str:
        """The SQLAlchemy URL in force."""
        return self.db_url or default_db_url(self.course)

    @property
    def state_dir(self) -> Path:
        """The service's own folder in the course (its SQLite file lives here by default)."""
        return self.course / STATE_DIR


def default_of(name: str) -> Any:
    """The default of one field (``default_of("check_seconds")``), for code that takes it alone."""
    found = next(f for f in fields(ServiceConfig) if f.name == name)
    if found.default is MISSING:
        return found.default_factory()  # type: ignore[operator]
    return found.default


def settings(command: str | None = None) -> list[tuple[Field[Any], Setting, Any]]:
    """Each field, its :class:`Setting` and its Python type; only ``command``'s when given."""
    hints = typing.get_type_hints(ServiceConfig)
    found = []
    for item in fields(ServiceConfig):
        about: Setting = item.metadata["setting"]
        if command is None or command in about.commands:
            found.append((item, about, hints[item.name]))
    return found


def default_text(item: Field[Any], about: Setting) -> str:
    if about.default_text:
        return about.default_text
    value = item.default
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return " ".join(value)
    return repr(value) if isinstance(value, str) else str(value)


def settings_table() -> str:
    """The table of every setting, for docs/deploy.md (Markdown)."""
    rows = [
        "| setting (config file) | option | environment | commands | default | what it does |",
        "|---|---|---|---|---|---|",
    ]
    for item, about, _ in settings():
        shown = default_text(item, about).replace("|", "\\|")
        what = about.help.replace("|", "\\|")
        if about.choices:
            what += f" One of: {', '.join(about.choices)}."
        names = f"`{about.name}` | `{about.flag}` | `{about.env}`"
        rows.append(f"| {names} | {', '.join(about.commands)} | {shown} | {what} |")
    return "\n".join(rows) + "\n"
