"""A real ``menace serve`` on 127.0.0.1 with no proxy in front keeps answering while slow and
idle clients hold connections, a student's waiting requests past their share are answered
at once instead of holding request threads, and simultaneous checks of one student cannot
race past their limit (issue 22).

The fixture's server has 4 request threads, so a handful of slow clients would hold them all if
each took a thread. Nothing is timed: a generous socket timeout only stops a hung test.
The speeds are measured by ``bench/bench_abuse.py``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.service.support import CORRECT, LiveService, menace, request

pytestmark = pytest.mark.slow

#: A correct file whose function sleeps: its check runs until the sandbox's time limit ends it.
STUCK = CORRECT.read_text().replace(
    "    new_beads = list(beads)", "    import time\n\n    time.sleep(60)\n    new_beads = list(beads)"
)


@pytest.fixture
def live(tmp_path: Path, db_url: str) -> Iterator[LiveService]:
    service = LiveService(tmp_path, db_url, "--threads", "4", "--per-student", "1").start()
    try:
        yield service
    finally:
        service.stop()


def _token(db_url: str, name: str) -> str:
    added = menace("users", "add", name, "--db", db_url)
    assert added.returncode == 0, added.stderr
    return str(added.stdout.split()[1])


def _connect(url: str) -> socket.socket:
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1"
    return socket.create_connection((parts.hostname, parts.port or 80), timeout=60)


def test_healthz_and_a_check_answer_while_slow_and_idle_clients_hold_connections(
    live: LiveService, db_url: str
) -> None:
    token = _token(db_url, "patient")
    with contextlib.ExitStack() as held:
        for _ in range(15):  # slow headers: a request line and half a head, then nothing
            slow = held.enter_context(_connect(live.url))
            slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        for _ in range(15):  # slow bodies: a whole head, 10 of the 1000 bytes it announces
            slow = held.enter_context(_connect(live.url))
            slow.sendall(
                b"POST /api/v1/checks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b'Content-Length: 1000\r\n\r\n{"challeng'
            )
        for _ in range(15):  # idle keep-alive: one answered request, then silence
            idle = held.enter_context(_connect(live.url))
            idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert idle.recv(65536).startswith(b"HTTP/1.1 200")

        code, health, _ = request(live.url + "/healthz")
        assert code == 200 and health["ok"]
        code, done, _ = request(
            live.url + "/api/v1/checks?wait=30",
            "POST",
            {"challenge": "after_game", "source": CORRECT.read_text()},
            token=token,
        )
        assert code == 200 and done["status"] == "done" and done["report"]["passed"]


def test_waits_past_a_students_share_are_answered_at_once_with_the_check_as_it_is(
    live: LiveService, db_url: str
) -> None:
    token = _token(db_url, "waiter")
    code, accepted, _ = request(
        live.url + "/api/v1/checks", "POST", {"challenge": "after_game", "source": STUCK}, token=token
    )
    assert code == 202
    url = f"{live.url}/api/v1/checks/{accepted['id']}?wait=30"
    with ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(pool.map(lambda _: request(url, token=token), range(10)))
    # One request waited (for the check, or for its 30 s); the other nine were answered at once,
    # long before the stuck check could finish: with the check as it is and Retry-After, or,
    # coming after such an answer and sooner than it said, refused as too soon.
    assert all(code == 200 or (code == 429 and headers.get("Retry-After")) for code, _, headers in answers)
    assert all(body["error"] == "too_soon" for code, body, _ in answers if code == 429)
    assert sum(code == 429 or body["status"] != "done" for code, body, _ in answers) >= 9
    assert any(code == 200 and headers.get("Retry-After") == "2" for code, _, headers in answers)
    assert request(live.url + "/healthz")[0] == 200


def test_20_simultaneous_checks_of_one_student_get_at_most_the_3_they_may_have_waiting(
    tmp_path: Path, db_url: str
) -> None:
    service = LiveService(tmp_path, db_url, "--per-student", "3", "--rate-limit", "1000 per minute").start()
    try:
        token = _token(db_url, "racer")
        body = {"challenge": "after_game", "source": STUCK}
        barrier = threading.Barrier(20)

        def one(_: int) -> tuple[int, Any, Any]:
            barrier.wait(timeout=60)
            return request(service.url + "/api/v1/checks", "POST", body, token=token)

        with ThreadPoolExecutor(max_workers=20) as pool:
            answers = list(pool.map(one, range(20)))
        accepted = [answer for code, answer, _ in answers if code == 202]
        refused = [answer for code, answer, _ in answers if code != 202]
        # A stuck check runs until the sandbox's time limit: none of these is done yet, so none
        # of their places was free again (if one were, it would be counted).
        finished = sum(
            request(f"{service.url}{a['url']}", token=token)[1]["status"] == "done" for a in accepted
        )
        assert len(accepted) <= 3 + finished
        # Refused for the limit, or, once one refusal told this student to wait, for sending
        # again before its Retry-After (the service remembers it: too_soon).
        errors = [answer["error"] for answer in refused]
        assert "too_many_waiting" in errors and set(errors) <= {"too_many_waiting", "too_soon"}, errors
    finally:
        service.stop()
