"""The web process and the queue: admission (429 with Retry-After, per student and for the
whole service), health, attempts that lost their job, and attempts that keep killing graders."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from menace_course.models import Status
from menace_course.service.db.attempts import store_attempt
from menace_course.service.db.engine import Database
from menace_course.service.db.people import context_for
from menace_course.service.db.tables import Attempt, AttemptStatus, now
from menace_course.service.dispatch.grading import GRADER_FAILED
from menace_course.service.dispatch.procrastinate_queue import MAX_RUNS
from tests.scale.support import SLOW, post, serve, until, worker
from tests.service.support import CORRECT, METRICS_TOKEN, menace, request
from tests.support import REPO

pytestmark = pytest.mark.slow


def _token(db_url: str, name: str) -> str:
    added = menace("users", "add", name, "--db", db_url)
    assert added.returncode == 0, added.stderr
    return str(added.stdout.split()[1])


def _status(url: str, token: str, attempt_id: str) -> str:
    code, body, _ = request(f"{url}/api/v1/checks/{attempt_id}", token=token)
    assert code == 200, body
    return str(body["status"])


def test_a_full_queue_answers_429_with_retry_after_and_the_checks_in_it_still_complete(
    tmp_path: Path, pg_url: str
) -> None:
    web, url = serve(tmp_path, pg_url, "--max-queue", "2", "--per-student", "2")
    runner = None
    try:
        code, health, _ = request(url + "/healthz", token=METRICS_TOKEN)
        assert code == 503 and health["dispatcher"]["workers"] == 0 and health["dispatcher"]["queue"]

        alice, bob = _token(pg_url, "alice"), _token(pg_url, "bob")
        first = [post(url, alice, f"{SLOW}\n# {i}\n") for i in range(2)]
        assert [code for code, _, _ in first] == [202, 202]
        code, body, headers = post(url, alice, CORRECT.read_text())
        assert code == 429 and body["error"] == "too_many_waiting" and int(headers["Retry-After"]) >= 1
        code, body, headers = post(url, bob, CORRECT.read_text())
        assert code == 429 and body["error"] == "queue_full", body
        assert int(headers["Retry-After"]) >= 1
        bob_may_retry_at = time.monotonic() + int(headers["Retry-After"])

        runner = worker(tmp_path, pg_url, "runner", 1)
        code, health, _ = until(
            lambda: (r := request(url + "/healthz", token=METRICS_TOKEN))[0] == 200 and r, 30, what="healthy"
        )
        assert health["dispatcher"]["worker_names"] == ["runner"]
        for _, accepted, _ in first:
            until(lambda a=accepted: _status(url, alice, a["id"]) == "done", 60, what="alice's checks")
        # Bob sends again once his Retry-After is over (sooner is refused as too_soon: the
        # service remembers a refusal's Retry-After).
        time.sleep(max(0.0, bob_may_retry_at - time.monotonic()))
        code, body, _ = post(url, bob, CORRECT.read_text(), wait=30)
        assert code == 200 and body["report"]["passed"], body
    finally:
        if runner is not None:
            runner.stop()
        web.stop()


def test_the_sweep_gives_a_lost_attempt_a_job_and_stops_one_that_keeps_killing_graders(
    tmp_path: Path, pg_url: str
) -> None:
    web, _ = serve(tmp_path, pg_url)
    runner = worker(tmp_path, pg_url, "runner", 1, "--log-format", "json")
    db = Database(pg_url)
    try:
        long_ago = now() - timedelta(minutes=5)
        with db.writing() as session:
            context = context_for(session).id
            lost, doomed = (
                store_attempt(
                    session,
                    context_id=context,
                    user_id=None,
                    challenge="after_game",
                    filename="a.py",
                    source=text,
                    request_id=made_by,
                ).id
                for text, made_by in ((CORRECT.read_text(), "lost-request-7"), (CORRECT.read_text(), None))
            )
            session.execute(update(Attempt).where(Attempt.id.in_([lost, doomed])).values(created_at=long_ago))
            session.execute(update(Attempt).where(Attempt.id == doomed).values(runs=MAX_RUNS))

        def done(attempt_id: str) -> Attempt | None:
            with db.reading() as session:
                found = session.get(Attempt, attempt_id)
                return found if found is not None and found.status is AttemptStatus.DONE else None

        checked = until(lambda: done(lost), 60, what="the lost attempt is checked")
        assert checked.report is not None and checked.report["passed"] and checked.runs == 1
        refused = until(lambda: done(doomed), 60, what="the doomed attempt is recorded")
        assert refused.report is not None and refused.report["status"] == Status.GRADER_ERROR.value
        assert GRADER_FAILED in str(refused.report)
        assert refused.runs == MAX_RUNS + 1
    finally:
        runner.stop()
        web.stop()
        db.dispose()
    # The worker's lines about the lost attempt (the sweep's, the check's) name the request
    # that made it, as they would had its own job been queued.
    lines = [json.loads(line) for line in runner.err.read_text().splitlines() if line.startswith("{")]
    about = [line for line in lines if lost in line["message"]]
    assert any("had no job" in line["message"] for line in about), about
    assert any("recorded" in line["message"] for line in about), about
    assert all(line["request_id"] == "lost-request-7" for line in about), about


def test_the_queue_is_refused_plainly_without_postgresql_and_workers_are_not_counted_here(
    tmp_path: Path, pg_url: str
) -> None:
    sqlite = f"sqlite:///{tmp_path / 'service.sqlite3'}"
    course = ("--course", str(REPO))
    refused = menace(
        "serve", "--db", sqlite, "--queue", "procrastinate", "--port", "0", *course, cwd=tmp_path
    )
    assert refused.returncode == 2
    assert "the procrastinate queue needs PostgreSQL" in refused.stderr and "Traceback" not in refused.stderr
    both = menace(
        "serve", "--db", pg_url, "--queue", "procrastinate", "--workers", "2", *course, cwd=tmp_path
    )
    assert both.returncode == 2 and "menace worker --concurrency" in both.stderr
    no_db = menace("worker", cwd=tmp_path)
    assert no_db.returncode == 2 and "needs --db" in no_db.stderr
    sqlite_worker = menace("worker", "--db", sqlite, *course, cwd=tmp_path)
    assert sqlite_worker.returncode == 2 and "needs PostgreSQL" in sqlite_worker.stderr
    empty = menace("worker", "status", "--db", pg_url, cwd=tmp_path)
    assert empty.returncode == 2 and "has no queue yet" in empty.stderr
