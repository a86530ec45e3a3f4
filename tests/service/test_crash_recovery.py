"""Nothing accepted is lost: ``kill -9`` the service mid-check, start it again, and every
acknowledged check is answered, none recorded twice."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from menace_course.service.db.engine import Database
from menace_course.service.db.tables import Attempt, AttemptStatus
from tests.service.support import CORRECT, LiveService, menace, request

pytestmark = pytest.mark.slow

#: A correct answer that takes a second to load: long enough to be caught mid-check.
SLOW = "import time\ntime.sleep(1.0)\n\n" + CORRECT.read_text()
CHECKS = 5


def _attempts(db_url: str) -> dict[str, Attempt]:
    database = Database(db_url)
    try:
        with database.reading() as session:
            return {a.id: a for a in session.scalars(select(Attempt))}
    finally:
        database.dispose()


def _wait_for_some_progress(live: LiveService, ids: list[str], token: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        states = [request(f"{live.url}/api/v1/checks/{i}", token=token)[1]["status"] for i in ids]
        if "running" in states or "done" in states:
            return
        time.sleep(0.1)
    raise AssertionError("no check started")


def test_kill_9_mid_check_then_restart_answers_every_accepted_check_once(tmp_path: Path, db_url: str) -> None:
    token = menace("users", "add", "alice", "--db", db_url).stdout.split()[1]
    live = LiveService(tmp_path, db_url, "--per-student", str(CHECKS)).start()
    try:
        ids = []
        for _ in range(CHECKS):
            status, body, _ = request(
                live.url + "/api/v1/checks", "POST", {"challenge": "after_game", "source": SLOW}, token
            )
            assert status == 202, body
            ids.append(body["id"])
        _wait_for_some_progress(live, ids, token)
        live.kill9()
    finally:
        live.stop()

    before = _attempts(db_url)
    assert set(before) == set(ids)  # every acknowledged check was stored before the 202
    unfinished = {i for i, a in before.items() if a.status is not AttemptStatus.DONE}
    assert unfinished, "the kill came too late to test anything: every check had finished"
    finished_before = {i: (a.finished_at, a.runs, a.report) for i, a in before.items() if i not in unfinished}

    live.start()
    try:
        answers: dict[str, Any] = {}
        for attempt_id in ids:
            status, body, _ = request(f"{live.url}/api/v1/checks/{attempt_id}?wait=30", token=token)
            while status == 200 and body["status"] != "done":
                status, body, _ = request(f"{live.url}/api/v1/checks/{attempt_id}?wait=30", token=token)
            answers[attempt_id] = body
        assert "re-running" in live.logs()
    finally:
        live.stop()

    assert all(a["status"] == "done" and a["report"]["passed"] for a in answers.values()), answers
    after = _attempts(db_url)
    assert set(after) == set(ids)  # nothing lost, nothing added
    for attempt_id, (finished_at, runs, report) in finished_before.items():
        again = after[attempt_id]
        assert (again.finished_at, again.runs, again.report) == (finished_at, runs, report)  # recorded once
    for attempt_id in unfinished:
        assert after[attempt_id].status is AttemptStatus.DONE
        assert after[attempt_id].runs >= 1
