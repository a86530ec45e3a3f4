"""The web process's HTTP server: waitress, run as a gunicorn worker (:class:`WebProcess`).

``menace serve`` faces the internet on its own, with no proxy in front, so it must not let
a slow client hold a request thread. gunicorn's threaded worker gives a connection a
thread as soon as its first byte arrives, and that thread then reads the rest of the
request at whatever pace the client likes: a hundred clients sending a header a minute
hold a hundred threads. waitress reads every request, headers and body, in one
``asyncore`` loop that holds no thread for it, and hands a request to one of its
``threads`` only once the whole of it has arrived; idle connections (keep-alive, or a
client that stopped sending) are closed after :data:`IDLE_SECONDS`.

gunicorn stays the arbiter: it binds the socket, starts the web process (or several,
``--web-processes``), starts another if one dies, and stops them on SIGTERM. This worker
only serves gunicorn's sockets with waitress, beats gunicorn's heartbeat from its loop, and
writes gunicorn's access log line for each request (through the configured logger, so a
login link's code is redacted there as before).
"""

from __future__ import annotations

import datetime
import os
import resource
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from gunicorn.workers.base import Worker
from waitress import wasyncore
from waitress.server import create_server

#: Seconds a connection may stay open with no byte coming in and no request running.
IDLE_SECONDS = 30
#: Most connections one web process keeps open at once (limited further by the open-files limit).
MAX_CONNECTIONS = 1000
#: Largest request head (request line and headers), in bytes.
MAX_HEADER_BYTES = 64 * 1024
#: File descriptors kept free for everything else (the database, the graders' pipes, logs).
SPARE_FILES = 200


def connection_limit() -> int:
    """How many connections to accept at most: :data:`MAX_CONNECTIONS`, or what the open-files limit allows.

    The soft limit is raised to the hard one first (a process may do that on its own).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = MAX_CONNECTIONS + SPARE_FILES
        raised = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
        if raised > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    return max(16, min(MAX_CONNECTIONS, soft - SPARE_FILES))


class _Response:
    """What gunicorn's access log reads of a response."""

    def __init__(self) -> None:
        self.status = "500"
        self.headers: list[tuple[str, str]] = []
        self.sent = 0


class WebProcess(Worker):  # type: ignore[misc]
    """A gunicorn worker that serves its sockets with waitress (see the module's docstring)."""

    def run(self) -> None:
        """Serve until gunicorn says stop, beating the heartbeat at least once a second."""
        server = create_server(
            self._logged(self.wsgi),
            sockets=[listener.sock for listener in self.sockets],
            threads=self.cfg.threads,
            connection_limit=connection_limit(),
            channel_timeout=IDLE_SECONDS,
            cleanup_interval=max(1, IDLE_SECONDS // 3),
            max_request_header_size=MAX_HEADER_BYTES,
            max_request_body_size=self._body_limit(),
            asyncore_use_poll=True,
            ident="menace-serve",
            clear_untrusted_proxy_headers=False,  # the app reads forwarded headers itself (--behind-proxy)
        )
        socket_map = server._map  # waitress's loop runs over this map of channels
        try:
            while self.alive:
                self.notify()
                if self.ppid != self._parent():
                    self.log.info("parent changed, shutting down: %s", self)
                    break
                wasyncore.loop(timeout=1.0, map=socket_map, use_poll=True, count=1)
        finally:
            server.task_dispatcher.shutdown(timeout=self.cfg.graceful_timeout)
            for channel in list(socket_map.values()):
                channel.close()

    @staticmethod
    def _parent() -> int:
        return os.getppid()

    def _body_limit(self) -> int:
        """Bytes of body waitress buffers at most: twice the app's own limit, which answers first."""
        from menace_course.service.server import ServiceApplication

        assert isinstance(self.app, ServiceApplication)
        return 2 * self.app.service_config.max_body_bytes + 64 * 1024

    def _logged(self, app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
        """``app``, writing gunicorn's access log line for each request once its answer is sent."""
        log = self.log

        def logged(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
            began = time.monotonic()
            response = _Response()

            def starting(status: str, headers: list[tuple[str, str]], *info: Any) -> Any:
                response.status, response.headers = status, headers
                return start_response(status, headers, *info)

            environ.setdefault("RAW_URI", environ.get("REQUEST_URI", environ.get("PATH_INFO", "")))
            body = app(environ, starting)
            try:
                for chunk in body:
                    response.sent += len(chunk)
                    yield chunk
            finally:
                close = getattr(body, "close", None)
                if close is not None:
                    close()
                request_headers = [
                    (key[5:].replace("_", "-"), value)
                    for key, value in environ.items()
                    if key.startswith("HTTP_") and isinstance(value, str)
                ]
                elapsed = datetime.timedelta(seconds=time.monotonic() - began)
                log.access(response, request_headers, environ, elapsed)

        return logged
