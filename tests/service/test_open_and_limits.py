"""Open practice (``--open``), and the limits that keep one student from crowding out the rest:
a bounded queue, checks waiting per student, and a rate limit, each a 429 with Retry-After."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from menace_course.service.db.models import Attempt
from tests.service.support import CORRECT, add_user, bearer, make_app, stop_app

SLOW = "import time\ntime.sleep(2.0)\n\n" + CORRECT.read_text()


@pytest.fixture(scope="module")
def open_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    app = make_app(f"sqlite:///{tmp_path_factory.mktemp('db') / 'open.sqlite3'}", open=True)
    yield app
    stop_app(app)


def test_open_practice_checks_without_a_name_and_remembers_the_browsers_attempts(open_app: Any) -> None:
    browser = open_app.test_client()
    page = browser.get("/c/after_game").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token
    answer = browser.post(
        "/c/after_game/check", data={"csrf_token": token.group(1), "source": CORRECT.read_text()}
    )
    assert answer.status_code == 303
    attempt_id = re.search(r"attempt=([0-9a-f-]{36})", answer.headers["Location"])
    assert attempt_id
    with open_app.extensions["menace"].db.reading() as session:
        attempt = session.scalar(select(Attempt).where(Attempt.id == attempt_id.group(1)))
        assert attempt is not None and attempt.user_id is None  # kept without identity
    reload = browser.get("/c/after_game").get_data(as_text=True)
    assert "15 / 15" in reload and "new = list(beads)" in reload
    assert "15 / 15" not in open_app.test_client().get("/c/after_game").get_data(as_text=True)  # not others'
    api = open_app.test_client().post(
        "/api/v1/checks?wait=30", json={"challenge": "after_game", "source": CORRECT.read_text()}
    )
    assert api.status_code == 200 and api.get_json()["report"]["passed"]


def test_a_full_queue_answers_429_with_retry_after_and_stores_nothing(tmp_path: Any) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'q.sqlite3'}", max_queue=1, per_user_queued=10)
    try:
        client = app.test_client()
        _, token = add_user(app)
        first = client.post(
            "/api/v1/checks", json={"challenge": "after_game", "source": SLOW}, headers=bearer(token)
        )
        assert first.status_code == 202
        second = client.post(
            "/api/v1/checks", json={"challenge": "after_game", "source": SLOW}, headers=bearer(token)
        )
        assert second.status_code == 429
        assert second.get_json()["error"] == "queue_full"
        assert int(second.headers["Retry-After"]) >= 1
        with app.extensions["menace"].db.reading() as session:
            assert len(session.scalars(select(Attempt)).all()) == 1
        done = client.get(first.get_json()["url"] + "?wait=30", headers=bearer(token)).get_json()
        assert done["status"] == "done"
        third = client.post(
            "/api/v1/checks?wait=30",
            json={"challenge": "after_game", "source": CORRECT.read_text()},
            headers=bearer(token),
        )
        assert third.status_code == 200  # room again
    finally:
        stop_app(app)


def test_one_student_may_have_only_so_many_checks_waiting(tmp_path: Any) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'p.sqlite3'}", per_user_queued=1)
    try:
        client = app.test_client()
        _, alice = add_user(app)
        _, bob = add_user(app)
        assert (
            client.post(
                "/api/v1/checks", json={"challenge": "after_game", "source": SLOW}, headers=bearer(alice)
            ).status_code
            == 202
        )
        again = client.post(
            "/api/v1/checks", json={"challenge": "after_game", "source": SLOW}, headers=bearer(alice)
        )
        assert again.status_code == 429 and again.get_json()["error"] == "too_many_waiting"
        assert again.headers["Retry-After"]
        other = client.post(
            "/api/v1/checks",
            json={"challenge": "after_game", "source": CORRECT.read_text()},
            headers=bearer(bob),
        )
        assert other.status_code == 202  # bob is not held back by alice
    finally:
        stop_app(app)


def test_the_rate_limit_is_per_student(tmp_path: Any) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'r.sqlite3'}", rate_limit="2 per minute", per_user_queued=10)
    try:
        client = app.test_client()
        _, alice = add_user(app)
        _, bob = add_user(app)
        body = {"challenge": "after_game", "source": CORRECT.read_text()}
        codes = [
            client.post("/api/v1/checks", json=body, headers=bearer(alice)).status_code for _ in range(2)
        ]
        assert codes == [202, 202]
        limited = client.post("/api/v1/checks", json=body, headers=bearer(alice))
        assert limited.status_code == 429 and limited.get_json()["error"] == "rate_limited"
        assert 0 < int(limited.headers["Retry-After"]) <= 60
        assert client.post("/api/v1/checks", json=body, headers=bearer(bob)).status_code == 202
    finally:
        stop_app(app)


def test_a_check_past_its_wall_clock_is_our_fault_and_the_next_check_runs(tmp_path: Any) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'w.sqlite3'}", check_seconds=2.5)
    try:
        client = app.test_client()
        _, token = add_user(app)
        slower = "import time\ntime.sleep(4.0)\n\n" + CORRECT.read_text()  # within the 5 s to load
        late = client.post(
            "/api/v1/checks?wait=30&format=text",
            json={"challenge": "after_game", "source": slower},
            headers=bearer(token),
        ).get_json()
        assert late["status"] == "done"
        assert late["report"]["status"] == "grader_error"
        assert "not your mistake" in late["feedback"]
        assert all(t["outcome"] == "skipped" for t in late["report"]["tests"])
        fine = client.post(
            "/api/v1/checks?wait=30",
            json={"challenge": "after_game", "source": CORRECT.read_text()},
            headers=bearer(token),
        ).get_json()
        assert fine["report"]["passed"]  # a new grader process took the old one's place
        assert app.extensions["menace"].dispatcher.health()["workers"] == 1
    finally:
        stop_app(app)
