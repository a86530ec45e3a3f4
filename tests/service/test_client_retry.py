"""``menace check --server`` honours the service's Retry-After: it backs off, and gives up in time.

A scripted HTTP server on 127.0.0.1 answers each request with the next answer of its script;
the client's sleeps go to a list and its clock moves by them, so nothing here waits.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from menace_course.service import client
from menace_course.service.client import ServiceError, Session, check_remote

Answer = tuple[int, dict[str, Any], dict[str, str]]


class Script:
    """The answers still to give, and the requests seen (method and path)."""

    def __init__(self, answers: list[Answer]) -> None:
        self.answers = answers
        self.seen: list[tuple[str, str]] = []


@pytest.fixture
def scripted() -> Iterator[tuple[str, Script]]:
    script = Script([])

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            script.seen.append((self.command, self.path))
            status, body, headers = script.answers.pop(0) if script.answers else (500, {}, {})
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", script
    finally:
        server.shutdown()
        server.server_close()


class FakeTime:
    """A clock that moves only when the client sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


def _session(url: str, fake: FakeTime) -> Session:
    return Session(url, "mc_token", sleep=fake.sleep, clock=fake.clock)


FULL = {"error": "queue_full", "message": "the queue is full"}


def test_a_429_is_waited_out_as_retry_after_says_and_at_least_twice_as_long_each_time(
    scripted: tuple[str, Script],
) -> None:
    url, script = scripted
    script.answers = [
        (429, FULL, {"Retry-After": "3"}),
        (429, FULL, {"Retry-After": "1"}),
        (429, FULL, {"Retry-After": "1"}),
        (200, {"challenges": []}, {}),
    ]
    fake = FakeTime()
    status, data, _ = _session(url, fake).request("GET", "/api/v1/challenges")
    assert status == 200 and data == {"challenges": []}
    assert fake.sleeps == [3, 6, 12]  # Retry-After first; then never less than twice the wait before


def test_a_service_that_keeps_refusing_is_given_up_on_by_the_deadline_with_a_sentence(
    scripted: tuple[str, Script],
) -> None:
    url, script = scripted
    script.answers = [(429, FULL, {"Retry-After": "50"})] * 50
    fake = FakeTime()
    with pytest.raises(ServiceError, match=r"too busy.*the queue is full"):
        _session(url, fake).request("GET", "/api/v1/challenges", deadline=fake.now + client.GIVE_UP_SECONDS)
    assert sum(fake.sleeps) <= client.GIVE_UP_SECONDS
    assert max(fake.sleeps) <= client.MOST_BACKOFF


def test_a_refused_wait_is_read_again_no_sooner_than_its_retry_after(
    scripted: tuple[str, Script], tmp_path: Path
) -> None:
    url, script = scripted
    pending = {"id": "abc", "status": "queued", "url": "/api/v1/checks/abc"}
    script.answers = [(202, pending, {"Retry-After": "2"})] + [(200, pending, {"Retry-After": "2"})] * 40
    fake = FakeTime()
    source = tmp_path / "after_game.py"
    source.write_text("def after_game(board):\n    return board\n", encoding="utf-8")
    with pytest.raises(
        ServiceError, match=r"has not finished after 60 s; see it later at .*/api/v1/checks/abc"
    ):
        check_remote(_session(url, fake), source, "after_game", "json", give_up=60)
    assert fake.sleeps == [2] * 30  # after each refused wait the client left as long as it was told
    assert [method for method, _ in script.seen] == ["POST"] + ["GET"] * 30
