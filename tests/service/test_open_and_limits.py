"""Open practice (``--open``), and the limits that keep one student from crowding out the rest:
a bounded queue, checks waiting per student, and a rate limit, each a 429 with Retry-After.
The lesson page's program runner runs students' code too, so it is held to the same rules.
On SQLite and on PostgreSQL."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from menace_course.service.db.tables import Attempt
from tests.service.conftest import DATABASES
from tests.service.support import CORRECT, add_user, bearer, make_app, postgres_database, stop_app

SLOW = "import time\ntime.sleep(2.0)\n\n" + CORRECT.read_text()


@pytest.fixture(scope="module", params=DATABASES)
def open_app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'open.sqlite3'}"
        else:
            url = stack.enter_context(postgres_database())
        app = make_app(url, open=True)
        stack.callback(stop_app, app)
        yield app


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


def test_a_full_queue_answers_429_with_retry_after_and_stores_nothing(db_url: str) -> None:
    app = make_app(db_url, max_queue=1, per_user_queued=10)
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
        assert second.get_json()["message"] == "the check queue is full; try again shortly"
        assert int(second.headers["Retry-After"]) >= 1
        _, other = add_user(app)  # (the first student was told to wait before sending again)
        in_chinese = client.post(
            "/api/v1/checks",
            json={"challenge": "after_game", "source": SLOW},
            headers={**bearer(other), "Accept-Language": "zh-TW"},
        )
        assert in_chinese.status_code == 429  # the same refusal, in the student's language
        assert in_chinese.get_json() == {"error": "queue_full", "message": "檢查的佇列已滿；請稍後再試"}
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


def test_one_student_may_have_only_so_many_checks_waiting(db_url: str) -> None:
    app = make_app(db_url, per_user_queued=1)
    try:
        client = app.test_client()
        _, alice = add_user(app)
        _, bob = add_user(app)
        first = client.post(
            "/api/v1/checks", json={"challenge": "after_game", "source": SLOW}, headers=bearer(alice)
        )
        assert first.status_code == 202
        assert "Retry-After" not in first.headers  # an accepted check is not told to come back
        again = client.post(
            "/api/v1/checks", json={"challenge": "after_game", "source": SLOW}, headers=bearer(alice)
        )
        assert again.status_code == 429 and again.get_json()["error"] == "too_many_waiting"
        # retry when a check of theirs may be done, not when the rate limit's minute is over
        assert again.headers["Retry-After"] == "2"
        other = client.post(
            "/api/v1/checks",
            json={"challenge": "after_game", "source": CORRECT.read_text()},
            headers=bearer(bob),
        )
        assert other.status_code == 202  # bob is not held back by alice
    finally:
        stop_app(app)


def test_an_anonymous_refusal_says_the_limit_is_the_addresss_and_suggests_signing_in(db_url: str) -> None:
    # A classroom behind one router shares an address: the checks waiting may not be yours.
    app = make_app(db_url, open=True, per_user_queued=1)
    try:
        client = app.test_client()
        first = client.post("/api/v1/checks", json={"challenge": "after_game", "source": SLOW})
        assert first.status_code == 202
        again = client.post("/api/v1/checks", json={"challenge": "after_game", "source": SLOW})
        assert again.status_code == 429 and again.get_json()["error"] == "too_many_waiting"
        message = again.get_json()["message"]
        assert "address" in message and "sign in" in message
        assert "you have" not in message
    finally:
        stop_app(app)


def test_the_rate_limit_is_per_student(db_url: str) -> None:
    app = make_app(db_url, rate_limit="2 per minute", per_user_queued=10)
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


def test_a_check_past_its_wall_clock_is_our_fault_and_the_next_check_runs(db_url: str) -> None:
    app = make_app(db_url, check_seconds=2.5)
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


def _signed_in_browser(app: Any, token: str | None) -> tuple[Any, str]:
    """A test client signed in with ``token`` (or anonymous), and the lesson page's CSRF token."""
    browser = app.test_client()
    if token is not None:
        form = browser.get("/login").get_data(as_text=True)
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', form)
        assert csrf
        assert browser.post("/login", data={"csrf_token": csrf.group(1), "token": token}).status_code == 303
    page = browser.get("/lesson").get_data(as_text=True)
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', page)
    assert found, "the lesson page carries its CSRF token"
    return browser, found.group(1)


def test_the_lesson_page_runs_programs_only_for_a_signed_in_student_and_within_the_rate_limit(
    db_url: str,
) -> None:
    app = make_app(db_url, rate_limit="2 per minute")
    try:
        program = {"step": 1, "source": "print(6 * 7)"}
        stranger, csrf = _signed_in_browser(app, None)
        refused = stranger.post("/lesson/api/run", json=program, headers={"X-CSRFToken": csrf})
        assert refused.status_code == 401 and "sign in" in refused.get_json()["message"]

        _, token = add_user(app)
        student, csrf = _signed_in_browser(app, token)
        for _ in range(2):
            ran = student.post("/lesson/api/run", json=program, headers={"X-CSRFToken": csrf})
            assert ran.status_code == 200 and ran.get_json()["printed"] == "42\n"
        limited = student.post("/lesson/api/run", json=program, headers={"X-CSRFToken": csrf})
        assert limited.status_code == 429 and "too many requests" in limited.get_json()["message"]
        assert 0 < int(limited.headers["Retry-After"]) <= 60

        _, other = add_user(app)
        classmate, csrf = _signed_in_browser(app, other)
        assert (
            classmate.post("/lesson/api/run", json=program, headers={"X-CSRFToken": csrf}).status_code == 200
        )
    finally:
        stop_app(app)


def test_open_practice_lets_anyone_run_the_lesson_programs(open_app: Any) -> None:
    browser, csrf = _signed_in_browser(open_app, None)
    ran = browser.post(
        "/lesson/api/run", json={"step": 1, "source": "print('hi')"}, headers={"X-CSRFToken": csrf}
    )
    assert ran.status_code == 200 and ran.get_json()["printed"] == "hi\n"
