"""What one check costs the web process, as behaviour (never as time; issue 26).

A request works out who sent it once, however many parts ask (the rate limit's key, the
view, the pacing of reads); a write on SQLite still commits as durably as it says; a
recorded result does not need the attempt loaded in its session.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from menace_course.service.db.engine import Database
from tests.service.support import CORRECT, add_user, bearer


def _counting_token_lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from menace_course.service import auth

    looked_up: list[str] = []
    real = auth.token_holder

    def counted(session: Any, token: str, context_id: int) -> Any:
        looked_up.append(token)
        return real(session, token, context_id)

    monkeypatch.setattr(auth, "token_holder", counted)
    return looked_up


def test_a_check_and_its_read_look_the_token_up_once_each(
    service_app: Any, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rate limit keys the request by the same person the view serves: one lookup a request."""
    _, token = add_user(service_app)
    looked_up = _counting_token_lookups(monkeypatch)
    answer = client.post(
        "/api/v1/checks?wait=30",
        json={"challenge": "after_game", "source": CORRECT.read_text()},
        headers=bearer(token),
    )
    assert answer.status_code == 200, answer.get_json()
    assert looked_up == [token]
    read = client.get(answer.get_json()["url"], headers=bearer(token))
    assert read.status_code == 200
    assert looked_up == [token, token]


def test_a_bad_token_is_looked_up_once_a_request_and_refused_each_time(
    service_app: Any, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token that is not valid is looked up once a request (the rate limit's key, then the view,
    which refuses it), and again by the next request: a refusal is kept for its request only."""
    looked_up = _counting_token_lookups(monkeypatch)
    for _ in range(2):
        answer = client.post(
            "/api/v1/checks", json={"challenge": "after_game", "source": "x"}, headers=bearer("mc_nobody")
        )
        assert answer.status_code == 401
        assert answer.get_json()["error"] == "unauthorized"
    assert looked_up == ["mc_nobody", "mc_nobody"]


def test_sqlite_writes_switch_between_durable_and_fast_commits_on_one_connection(tmp_path: Any) -> None:
    """A stored attempt commits with synchronous=FULL even right after a progress write on the same
    pooled connection set NORMAL (the level is set only when it changes, never assumed)."""
    database = Database(f"sqlite:///{tmp_path / 'service.sqlite3'}")
    database.engine.pool.dispose()
    levels = []
    try:
        for durable in (True, False, False, True, True, False):
            with database.writing(durable=durable) as session:
                levels.append(session.execute(text("PRAGMA synchronous")).scalar())
    finally:
        database.dispose()
    full, normal = 2, 1
    assert levels == [full, normal, normal, full, full, normal]


def test_a_student_over_their_own_limit_is_told_so_even_when_the_queue_is_full(db_url: str) -> None:
    """The reading that chooses the words is made only for a refusal; the words are unchanged."""
    from tests.service.support import make_app, stop_app
    from tests.service.test_open_and_limits import SLOW

    app = make_app(db_url, max_queue=1, per_user_queued=1)
    try:
        client = app.test_client()
        _, alice = add_user(app)
        _, bob = add_user(app)
        body = {"challenge": "after_game", "source": SLOW}
        assert client.post("/api/v1/checks", json=body, headers=bearer(alice)).status_code == 202
        again = client.post("/api/v1/checks", json=body, headers=bearer(alice))
        assert again.status_code == 429 and again.get_json()["error"] == "too_many_waiting"
        assert again.headers["Retry-After"] == "2"
        other = client.post("/api/v1/checks", json=body, headers=bearer(bob))
        assert other.status_code == 429 and other.get_json()["error"] == "queue_full"
    finally:
        stop_app(app)


def test_a_tokens_holder_and_role_come_in_one_answer_as_in_two(db_url: str) -> None:
    """token_holder (what a request asks) agrees with user_by_token and role_in, revoked included."""
    from menace_course.service.db.people import (
        add_local_user,
        context_for,
        revoke,
        role_in,
        token_holder,
        user_by_token,
    )
    from menace_course.service.db.tables import Role

    database = Database(db_url)
    database.upgrade()
    try:
        with database.writing() as session:
            teacher, teachers = add_local_user(session, "teacher", Role.INSTRUCTOR)
            learner, learners = add_local_user(session, "learner", Role.LEARNER)
            here, elsewhere = context_for(session).id, context_for(session, "other", "course").id
            ids = teacher.id, learner.id
        with database.reading() as session:
            for token, user_id in ((teachers, ids[0]), (learners, ids[1])):
                for context_id in (here, elsewhere):
                    holder = token_holder(session, token, context_id)
                    user = user_by_token(session, token)
                    assert holder is not None and user is not None
                    assert (holder.user_id, holder.name) == (user.id, user.name) == (user_id, user.name)
                    assert holder.role == role_in(session, user_id, context_id)
            assert token_holder(session, teachers, here).role is Role.INSTRUCTOR  # type: ignore[union-attr]
            assert token_holder(session, teachers, elsewhere).role is None  # type: ignore[union-attr]
            assert token_holder(session, "mc_nobody", here) is None
        with database.writing() as session:
            revoke(session, session.get(type(teacher), ids[0]))  # type: ignore[arg-type]
        with database.reading() as session:
            assert token_holder(session, teachers, here) is None
    finally:
        database.dispose()
