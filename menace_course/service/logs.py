"""The service's log lines: as text, or one JSON object each (``log_format = "json"``), with a request id.

Every request gets an id (:class:`RequestIds`): the ``X-Request-Id`` its reverse proxy sent,
when the request came from a trusted proxy (``behind_proxy`` and ``trusted_proxies``) and
the id is short and plain, else a new one. It is answered in the response's
``X-Request-Id`` header, kept in :data:`request_id` while the request runs, carried with a
check to the grader slot that runs it (:attr:`CheckJob.request_id
<menace_course.service.dispatch.base.CheckJob.request_id>`, bound by :func:`bound`), and
written in every log line made meanwhile.

A JSON line is ``{"time", "level", "logger", "message", "request_id"}`` (and ``"exception"``:
the exception's type and places, never its message). ``json.dumps`` escapes every control
character, so a line is one line whatever a message holds. What is logged is the callers'
choice, and they never log student code, hidden inputs or login codes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

#: The id of the request (or the check) this thread is working for; empty when none.
request_id: ContextVar[str] = ContextVar("menace_request_id", default="")
#: Where the id of a request is kept in its WSGI environ (the access log reads it there).
ENVIRON_KEY = "menace.request_id"
#: What a proxy's id may look like to be believed (anything else is replaced by a new one).
_PLAIN_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


@contextlib.contextmanager
def bound(value: str) -> Iterator[None]:
    """Log with ``value`` as the request id inside the block (e.g. a grader slot running a check)."""
    token = request_id.set(value)
    try:
        yield
    finally:
        request_id.reset(token)


class RequestIdFilter(logging.Filter):
    """Gives every record a ``request_id`` attribute (the current one, or ``-``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Add the id; keep the record."""
        if not getattr(record, "request_id", ""):
            record.request_id = request_id.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line."""
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "") or request_id.get() or None,
        }
        if record.exc_info and record.exc_info[1] is not None:
            from menace_course.service.dispatch.grading import where

            line["exception"] = where(record.exc_info[1])
        # ensure_ascii escapes C0, DEL-free C1 and all other non-ASCII; DEL itself is escaped here.
        return json.dumps(line, ensure_ascii=True).replace("\x7f", "\\u007f")


def setup_logging(log_format: str, text_format: str | None = None) -> None:
    """Configure this process's logging: JSON lines on stderr, or ``text_format`` lines (if given).

    With text and no ``text_format`` nothing changes (Python's own last-resort handler
    writes warnings as plain lines, as before).
    """
    root = logging.getLogger()
    if log_format == "json":
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        handler.addFilter(RequestIdFilter())
        root.handlers[:] = [handler]
        root.setLevel(logging.WARNING)
        logging.getLogger("menace").setLevel(logging.INFO)
    elif text_format is not None:
        logging.basicConfig(level=logging.INFO, format=text_format)
        for each in root.handlers:
            each.addFilter(RequestIdFilter())


def plain_id(value: str | None) -> str | None:
    """``value`` when it may be used as a request id, else None."""
    return value if value is not None and _PLAIN_ID.fullmatch(value) else None


class RequestIds:
    """WSGI middleware: each request's id (see the module's docstring), in the environ and the answer.

    ``is_trusted(peer)`` says whether the direct peer is a configured proxy; None means no
    proxy is (the id is then always made here).
    """

    def __init__(self, app: Any, is_trusted: Callable[[str | None], bool] | None) -> None:
        """Wrap ``app``."""
        self.app = app
        self.is_trusted = is_trusted

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """Give the request its id, and answer it in ``X-Request-Id``."""
        given = plain_id(environ.get("HTTP_X_REQUEST_ID"))
        trusted = self.is_trusted is not None and self.is_trusted(environ.get("REMOTE_ADDR"))
        value = given if given and trusted else uuid.uuid4().hex
        environ[ENVIRON_KEY] = value

        def starting(status: str, headers: list[tuple[str, str]], *info: Any) -> Any:
            headers = [(k, v) for k, v in headers if k.lower() != "x-request-id"]
            return start_response(status, [*headers, ("X-Request-Id", value)], *info)

        with bound(value):
            result: Iterable[bytes] = self.app(environ, starting)
        return result
