"""``kill -9`` a worker in the middle of checks: every accepted check still completes, on
another worker or on the same one started again, and none is recorded twice."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select

from menace_course.service.db.engine import Database
from menace_course.service.db.tables import Attempt, AttemptStatus
from tests.scale.support import SLOW, alive, descendants, post, serve, until, worker
from tests.service.support import menace

pytestmark = pytest.mark.slow


def _token(db_url: str, name: str) -> str:
    added = menace("users", "add", name, "--db", db_url)
    assert added.returncode == 0, added.stderr
    return str(added.stdout.split()[1])


def _attempts(db: Database) -> dict[str, Attempt]:
    with db.reading() as session:
        return {a.id: a for a in session.scalars(select(Attempt))}


@pytest.mark.parametrize("then", ["another worker takes over", "the same worker starts again"])
def test_a_worker_killed_mid_check_loses_no_check_and_records_none_twice(
    tmp_path: Path, pg_url: str, then: str
) -> None:
    web, url = serve(tmp_path, pg_url, "--per-student", "10", "--web-processes", "2")
    victim = worker(tmp_path, pg_url, "victim", 2)
    rescuer = None
    db = Database(pg_url)
    try:
        tokens = [_token(pg_url, f"student{i}") for i in range(3)]
        ids = []
        for i in range(6):
            status, body, _ = post(url, tokens[i % 3], f"{SLOW}\n# attempt {i}\n")
            assert status == 202, body
            ids.append(body["id"])
        until(
            lambda: sum(a.status is AttemptStatus.RUNNING for a in _attempts(db).values()) == 2,
            60,
            what="the victim holds two checks",
        )
        graders = [pid for pid, line in descendants(victim.pid).items() if "menace_course.pool" in line]
        assert len(graders) == 2, descendants(victim.pid)
        victim.kill9()
        until(lambda: not any(alive(pid) for pid in graders), 10, what="the victim's graders end with it")
        rescuer = worker(tmp_path, pg_url, "rescuer" if then.startswith("another") else "victim-again", 2)

        done = until(
            lambda: all(a.status is AttemptStatus.DONE for a in _attempts(db).values()) and _attempts(db),
            120,
            what="every accepted check is recorded",
        )
        assert set(done) == set(ids)
        for attempt in done.values():
            assert attempt.report is not None and attempt.report["passed"], attempt.report
            assert attempt.score == attempt.max_score == 15.0
        rerun = [a for a in done.values() if a.runs >= 2]
        assert len(rerun) == 2, {a.id: a.runs for a in done.values()}

        logs = victim.logs() + rescuer.logs()
        for attempt_id in ids:
            assert len(re.findall(rf"attempt {attempt_id} recorded \(", logs)) == 1, attempt_id
        graders = [line for line in descendants(web.pid).values() if "menace_course.pool" in line]
        assert not [line for line in descendants(web.pid).values() if "bwrap" in line] + graders
    finally:
        if rescuer is not None:
            rescuer.stop()
        victim.stop()
        web.stop()
        db.dispose()
