"""Serve the app with gunicorn: one web process with request threads, and its pool of graders.

    menace serve (gunicorn arbiter) ── web process (waitress: one loop reads every request,
                                          │          ``threads`` request threads answer them)
                                          └── grader processes (the dispatcher's pool)

The web process serves HTTP with waitress (:mod:`~menace_course.service.web_process`), so a
slow or idle client holds a socket, never a request thread.

One web process, not several: the embedded queue, the ``?wait`` events and the rate
limits live in its memory. Request threads are many because a ``?wait`` holds one while
the check runs (rationed per student, :mod:`~menace_course.service.dispatch.waits`); the
CPU work happens in the grader processes. If the web process dies,
the arbiter starts another, which re-runs every accepted check not yet recorded.
With ``--queue procrastinate`` the queue and the waits live in PostgreSQL and the graders
on the workers (``menace worker``), so ``--web-processes N`` may run N web processes (docs/scaling.md).

The access log never shows a one-time login link's code (:class:`RedactingLogger`).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication
from gunicorn.glogging import Logger

from menace_course.service.config import ServiceConfig

_SECRET_PATH = re.compile(r"/login/(?!link\b)[^/?\s\"]+")


class RedactingLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger, with login-link codes cut out of the access log."""

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        """The access log's fields, with ``/login/<code>`` shown as ``/login/…`` in every one
        (the request line and path, and the Referer, ``%(f)s`` and ``%({referer}i)s``)."""
        atoms: dict[str, Any] = super().atoms(resp, req, environ, request_time)
        for key, value in atoms.items():
            if isinstance(value, str) and "/login/" in value:
                atoms[key] = _SECRET_PATH.sub("/login/…", value)
        return atoms

    def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:
        """The access line, logged with the request's id (see :mod:`~menace_course.service.logs`)."""
        from menace_course.service.logs import ENVIRON_KEY, bound

        with bound(str(environ.get(ENVIRON_KEY, ""))):
            super().access(resp, req, environ, request_time)


class JsonLogger(RedactingLogger):
    """:class:`RedactingLogger` writing one JSON object per line (``log_format = "json"``)."""

    def setup(self, cfg: Any) -> None:
        """gunicorn's handlers, each with the JSON formatter and the request id."""
        from menace_course.service.logs import JsonFormatter, RequestIdFilter

        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(JsonFormatter())
                handler.addFilter(RequestIdFilter())


def bind_address(host: str, port: int) -> str:
    """gunicorn's ``bind`` for a host and port (IPv6 addresses in brackets)."""
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"


class ServiceApplication(BaseApplication):  # type: ignore[misc]
    """``menace serve``'s gunicorn application (see the module's docstring)."""

    def __init__(self, config: ServiceConfig, announce: Callable[[str], None]) -> None:
        """Serve ``config``; ``announce(url)`` is called once the socket listens."""
        self.service_config = config
        self.announce = announce
        self.flask_app: Flask | None = None
        super().__init__()

    def load_config(self) -> None:
        """gunicorn settings from the service's configuration."""
        config = self.service_config

        def when_ready(server: Any) -> None:
            host, port = server.LISTENERS[0].sock.getsockname()[:2]
            shown = f"[{host}]" if ":" in host else host
            self.announce(f"http://{shown}:{port}")

        def child_exit(server: Any, worker: Any) -> None:
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]

        def worker_exit(server: Any, worker: Any) -> None:
            if self.flask_app is not None:
                from menace_course.service.app import shutdown

                shutdown(self.flask_app)

        settings: dict[str, Any] = {
            "bind": [bind_address(config.host, config.port)],
            "workers": config.web_processes,  # 1 unless the queue is procrastinate (h-scale)
            "worker_class": "menace_course.service.web_process.WebProcess",
            "threads": config.threads,
            "timeout": 120,
            "graceful_timeout": 10,
            "accesslog": "-",
            "errorlog": "-",
            "loglevel": "info",
            "logger_class": JsonLogger if config.log_format == "json" else RedactingLogger,
            "proc_name": "menace-serve",
            "control_socket_disable": True,
            "when_ready": when_ready,
            "worker_exit": worker_exit,
            "child_exit": child_exit,
            "forwarded_allow_ips": ",".join(config.trusted_proxies) if config.behind_proxy else "",
        }
        for key, value in settings.items():
            self.cfg.set(key, value)

    def load(self) -> Flask:
        """Build the app in the web process (after gunicorn forked it)."""
        from menace_course.service.app import create_app

        self.flask_app = create_app(self.service_config)
        return self.flask_app


def share_metrics() -> str:
    """The folder where the web processes keep their metrics (prometheus_client's multiprocess mode).

    prometheus_client reads ``PROMETHEUS_MULTIPROC_DIR`` once, when it is first imported,
    so this runs before anything imports it (:mod:`~menace_course.service.metrics`).
    """
    if "prometheus_client" in sys.modules:
        raise RuntimeError("prometheus_client was imported before its multiprocess folder was set")
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or tempfile.mkdtemp(prefix="menace-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    return folder


def serve(config: ServiceConfig, announce: Callable[[str], None]) -> None:
    """Run the service until it is stopped (Ctrl-C or SIGTERM)."""
    import shutil

    from menace_course.service.logs import setup_logging

    sys.argv = sys.argv[:1]  # gunicorn must not read menace's own arguments
    setup_logging(config.log_format)
    folder = share_metrics()  # before gunicorn forks the web processes
    arbiter = os.getpid()
    try:
        ServiceApplication(config, announce).run()
    finally:
        if os.getpid() == arbiter:  # a web process leaves through here too (gunicorn's sys.exit)
            shutil.rmtree(folder, ignore_errors=True)
