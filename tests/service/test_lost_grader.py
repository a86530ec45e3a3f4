"""What the service makes of a lost grader (``pool.Lost``), as the student and the log see it.

A grader process killed under a check (the system's OOM killer, say) is replaced and the
check run once more: the student sees their verdict, the log says what happened. One that
dies again is the grader's fault: the student reads a grader error that does not blame
their file, and the next check runs on a fresh grader. (A grader that runs past
``--check-seconds``: ``test_open_and_limits.py``.)
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service.support import CORRECT, add_user, bearer, make_app, stop_app

pytestmark = pytest.mark.slow

#: A right answer that takes a while to load (within the 5 s a load may take).
SLOW = "import time\ntime.sleep(3.0)\n\n" + CORRECT.read_text()


def graders() -> set[int]:
    """This process's grader processes (the pool's, by their command line)."""
    found = set()
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if parent == os.getpid() and b"menace_course.pool" in (entry / "cmdline").read_bytes():
                found.add(int(entry.name))
    return found


@contextlib.contextmanager
def killing_graders(spared: set[int], times: int | None = None) -> Iterator[list[int]]:
    """Kill each new grader process as soon as it is seen (up to ``times``); the pids killed."""
    killed: list[int] = []
    done = threading.Event()

    def kill() -> None:
        while not done.is_set() and (times is None or len(killed) < times):
            for pid in graders() - spared - set(killed):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
            time.sleep(0.05)

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    try:
        yield killed
    finally:
        done.set()
        thread.join()


def _check(client: Any, token: str, source: str, wait: bool = True) -> dict[str, Any]:
    body = {"challenge": "after_game", "source": source}
    query = "?wait=60&format=text" if wait else ""
    answer: dict[str, Any] = client.post(
        f"/api/v1/checks{query}", json=body, headers=bearer(token)
    ).get_json()
    return answer


def test_a_grader_killed_under_a_check_is_replaced_and_the_student_gets_their_verdict(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    before = graders()
    app = make_app(f"sqlite:///{tmp_path / 'service.sqlite3'}")
    try:
        client = app.test_client()
        _, token = add_user(app)
        accepted = _check(client, token, SLOW, wait=False)
        deadline = time.monotonic() + 120
        while client.get(accepted["url"], headers=bearer(token)).get_json()["status"] != "running":
            assert time.monotonic() < deadline, "the check never started"
            time.sleep(0.05)
        with caplog.at_level(logging.WARNING), killing_graders(before, times=1) as killed:
            while not killed:
                time.sleep(0.05)
            done = client.get(accepted["url"] + "?wait=120&format=text", headers=bearer(token)).get_json()
        assert done["status"] == "done" and done["report"]["passed"], done
        assert "tried once more on a fresh one" in caplog.text
    finally:
        stop_app(app)


def test_a_grader_that_dies_again_is_a_grader_error_and_the_next_check_runs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    before = graders()
    app = make_app(f"sqlite:///{tmp_path / 'service.sqlite3'}")
    try:
        client = app.test_client()
        _, token = add_user(app)
        with caplog.at_level(logging.ERROR), killing_graders(before):
            lost = _check(client, token, CORRECT.read_text())
        assert lost["status"] == "done" and lost["report"]["status"] == "grader_error", lost
        assert "not your mistake" in " ".join(lost["feedback"].split())
        assert "grader lost (died)" in caplog.text and "exit code" not in lost["feedback"]
        fine = _check(client, token, CORRECT.read_text())
        assert fine["report"]["passed"]  # a fresh grader took the dead ones' place
    finally:
        stop_app(app)
