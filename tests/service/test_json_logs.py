"""``--log-format json``: one JSON object a line, each with the request id, which a trusted proxy
may choose, the response tells, and the grader's lines for that check carry."""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from menace_course.service.logs import JsonFormatter, RequestIdFilter
from tests.service.support import LiveService, add_user, bearer, make_app, stop_app

KEYS = {"time", "level", "logger", "message", "request_id"}


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@pytest.mark.slow
def test_a_real_service_logs_json_lines_with_the_proxys_request_id(tmp_path: Path, db_url: str) -> None:
    import urllib.request

    live = LiveService(tmp_path, db_url, "--log-format", "json", "--behind-proxy").start()
    try:
        asked = urllib.request.Request(live.url + "/healthz", headers={"X-Request-Id": "lb-4711.a"})
        with urllib.request.urlopen(asked, timeout=30) as answer:
            assert answer.headers["X-Request-Id"] == "lb-4711.a"  # from a trusted proxy (127.0.0.1)
        odd = urllib.request.Request(live.url + "/healthz", headers={"X-Request-Id": "x" * 200})
        with urllib.request.urlopen(odd, timeout=30) as answer:
            made = answer.headers["X-Request-Id"]
            assert made and made != "x" * 200  # not plain and short: replaced
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "lb-4711.a" not in live.logs():
            time.sleep(0.2)
    finally:
        live.stop()
    out = (tmp_path / "serve-1.out").read_text()
    err = (tmp_path / "serve-1.err").read_text()
    logged = _lines(out) + _lines(err)
    assert logged and all(KEYS <= set(line) for line in logged)
    for name in ("serve-1.out", "serve-1.err"):  # every log line is JSON (stdout also has the banner)
        text = (tmp_path / name).read_text()
        strays = [ln for ln in text.splitlines() if ln and not ln.startswith("{") and not ln.startswith(" ")]
        assert all(ln.startswith(("menace serve:", "WARNING: serving WITHOUT")) for ln in strays), strays
    access = [line for line in logged if line["logger"] == "gunicorn.access"]
    assert any(line["request_id"] == "lb-4711.a" and "/healthz" in line["message"] for line in access)
    assert any(line["request_id"] == made for line in access)


def test_without_a_trusted_proxy_the_request_id_is_made_here(service_app: Any) -> None:
    client = service_app.test_client()
    first = client.get("/healthz", headers={"X-Request-Id": "chosen-by-anyone"})
    second = client.get("/healthz")
    assert first.headers["X-Request-Id"] != "chosen-by-anyone"
    assert len({first.headers["X-Request-Id"], second.headers["X-Request-Id"]}) == 2


@pytest.fixture
def dispatch_log() -> Iterator[io.StringIO]:
    """The dispatcher's log lines, as ``--log-format json`` writes them."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    logger = logging.getLogger("menace.service.dispatch")
    logger.addHandler(handler)
    try:
        yield stream
    finally:
        logger.removeHandler(handler)


def test_the_graders_log_lines_for_a_check_carry_its_request_id(
    tmp_path: Path, dispatch_log: io.StringIO
) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'service.sqlite3'}", check_seconds=1.0)
    try:
        _, token = add_user(app)
        hangs = "import time\ntime.sleep(30)\n"
        answer = app.test_client().post(
            "/api/v1/checks?wait=20", json={"challenge": "after_game", "source": hangs}, headers=bearer(token)
        )
        assert answer.status_code in (200, 202)
        request_id = answer.headers["X-Request-Id"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "grader lost (timeout)" not in dispatch_log.getvalue():
            time.sleep(0.2)
    finally:
        stop_app(app)
    lines = _lines(dispatch_log.getvalue())
    ran_out = [line for line in lines if "grader lost (timeout)" in line["message"]]
    assert ran_out and all(line["request_id"] == request_id for line in ran_out), lines
    assert hangs not in dispatch_log.getvalue()


def test_a_json_line_holds_no_raw_control_character_whatever_the_message() -> None:
    record = logging.LogRecord(
        "menace.test", logging.WARNING, __file__, 1, "%s", ("a\x1b[2J\x00\x7f\x85\u2028b",), None
    )
    line = JsonFormatter().format(record)
    assert all(32 <= ord(c) < 127 for c in line), line
    assert json.loads(line)["message"] == "a\x1b[2J\x00\x7f\x85\u2028b"
