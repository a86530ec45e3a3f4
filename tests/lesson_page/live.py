"""A real HTTP server for the lesson page's browser tests."""

from __future__ import annotations

import threading
from typing import Any


class LiveServer:
    """A WSGI app served over real HTTP on 127.0.0.1 and a free port, in a thread."""

    def __init__(self, app: Any) -> None:
        from werkzeug.serving import make_server

        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._thread.join(timeout=10)
