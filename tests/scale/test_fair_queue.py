"""Fair share on the distributed queue (issue 22): a student's first waiting check goes before a
flooding student's second and third, whatever the order they arrived in. Asserted by the
order the attempts finish in, one worker with one grader; nothing is timed."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from menace_course.service.db.engine import Database
from menace_course.service.db.tables import Attempt, AttemptStatus
from tests.scale.support import SLOW, post, serve, until, worker
from tests.service.support import CORRECT, menace

pytestmark = pytest.mark.slow


def _token(db_url: str, name: str) -> str:
    added = menace("users", "add", name, "--db", db_url)
    assert added.returncode == 0, added.stderr
    return str(added.stdout.split()[1])


def test_a_late_students_check_runs_before_a_flooding_students_waiting_ones(
    tmp_path: Path, pg_url: str
) -> None:
    web, url = serve(tmp_path, pg_url, "--per-student", "3")
    runner = None
    db = Database(pg_url)
    try:
        flooder, victim = _token(pg_url, "flooder"), _token(pg_url, "victim")
        flood = [post(url, flooder, f"{SLOW}\n# {n}\n") for n in range(3)]
        assert [code for code, _, _ in flood] == [202, 202, 202]
        code, mine, _ = post(url, victim, CORRECT.read_text())
        assert code == 202
        runner = worker(tmp_path, pg_url, "runner", 1)  # one grader: the checks run one at a time
        ids = [body["id"] for _, body, _ in flood] + [mine["id"]]

        def finished() -> list[str]:
            with db.reading() as session:
                done = session.scalars(
                    select(Attempt)
                    .where(Attempt.id.in_(ids), Attempt.status == AttemptStatus.DONE)
                    .order_by(Attempt.finished_at)
                ).all()
                return [a.id for a in done]

        order = until(lambda: len(done := finished()) == 4 and done, 180, what="every check")
        # The flood's first check arrived first and runs first; the victim's comes next.
        assert order[:2] == [ids[0], mine["id"]], order
    finally:
        if runner is not None:
            runner.stop()
        web.stop()
        db.dispose()
