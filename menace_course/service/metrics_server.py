"""A ``menace worker``'s own ``/metrics``: a small HTTP server in a thread, for Prometheus.

A worker records the checks it runs and sends the passbacks of its background queue, so
its counters (``menace_checks_total``, ``menace_check_seconds``,
``menace_passback_retries_total``, ... of :mod:`.metrics`) live in its process, and the web
process's ``/metrics`` never sees them. ``menace worker --metrics-port 9464`` serves them,
with this worker's gauges (:class:`~.metrics.DispatcherGauges` over the worker's
``health()``: its graders alive, the checks it runs now, the checks waiting in the queue)::

    curl -H "Authorization: Bearer $MENACE_METRICS_TOKEN" http://127.0.0.1:9464/metrics

It is protected by where it listens (``--metrics-host``, the loopback by default) and, when
``metrics_token`` is set, by that bearer token (401 without it, 403 with another). Only
``GET /metrics`` is answered; its requests are not logged (a scrape every 15 s).
"""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CONTENT_TYPE_LATEST

from menace_course.errors import UsageError
from menace_course.service.metrics import Healthy, bearer_matches, scrape


class _Server(socketserver.ThreadingMixIn, WSGIServer):
    """One thread a scrape, so a slow client holds no other."""

    daemon_threads = True


class _Server6(_Server):
    """The same, on an IPv6 address."""

    address_family = socket.AF_INET6


class _Quiet(WSGIRequestHandler):
    """No access log on stderr (the JSON log stays JSON)."""

    def log_message(self, format: str, *args: Any) -> None:
        """Say nothing."""


class MetricsApp:
    """The WSGI application: ``GET /metrics`` for the token's holder (anyone, without a token)."""

    def __init__(self, source: Healthy, token: str) -> None:
        """Serve ``source``'s gauges and this process's counters, behind ``token`` if not empty."""
        self.source = source
        self.token = token

    def allowed(self, header: str) -> int:
        """200, or the status a request with this ``Authorization`` header gets."""
        if not self.token:
            return 200
        if not header:
            return 401
        return 200 if bearer_matches(header, self.token) else 403

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """Answer one request."""
        if environ.get("PATH_INFO") != "/metrics":
            return _plain(start_response, "404 Not Found", "only /metrics is here\n")
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            return _plain(start_response, "405 Method Not Allowed", "GET /metrics\n")
        status = self.allowed(environ.get("HTTP_AUTHORIZATION", ""))
        if status == 401:
            return _plain(
                start_response,
                "401 Unauthorized",
                "send 'Authorization: Bearer <metrics token>'\n",
                [("WWW-Authenticate", 'Bearer realm="menace worker metrics"')],
            )
        if status == 403:
            return _plain(start_response, "403 Forbidden", "that is not the metrics token\n")
        body = scrape(self.source)
        start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST), ("Content-Length", str(len(body)))])
        return [body]


def _plain(
    start_response: Callable[..., Any], status: str, text: str, more: list[tuple[str, str]] | None = None
) -> list[bytes]:
    body = text.encode()
    headers = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))]
    start_response(status, headers + (more or []))
    return [body]


class MetricsServer:
    """:class:`MetricsApp` listening on ``host:port`` in a daemon thread, until :meth:`stop`."""

    def __init__(self, source: Healthy, host: str, port: int, token: str) -> None:
        """Listen now, so that a port in use fails at the start.

        Raises:
            UsageError: the address cannot be listened on (in use, not this machine's).
        """
        kind = _Server6 if ":" in host else _Server
        try:
            self._server = make_server(
                host, port, MetricsApp(source, token), server_class=kind, handler_class=_Quiet
            )
        except OSError as error:
            raise UsageError(
                f"cannot listen on {host} port {port} for the metrics: {error.strerror or error} "
                "(choose another --metrics-port or --metrics-host)"
            ) from error
        self._thread = threading.Thread(target=self._server.serve_forever, name="metrics", daemon=True)

    @property
    def address(self) -> str:
        """``http://host:port/metrics`` as it listens (the port chosen when 0 was asked)."""
        host, port = self._server.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{name}]" if ":" in name else name
        return f"http://{shown}:{port}/metrics"

    def start(self) -> MetricsServer:
        """Start answering."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop answering and close the socket."""
        self._server.shutdown()
        self._server.server_close()
