"""A submission stopped by a call's time limit is a ``timeout`` in grades.csv and the class report.

The tests ran, so its score counts what passed before the stop; but what kept it from
passing is time, not a wrong answer, and the instructor reads that in the status and
the reason. A wrong answer as well makes it ``failed``, and the reason still names the
timeout.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from grade_support import LOOPS, REPO, read_grades, write

pytestmark = pytest.mark.slow

SLOW_ON_A_LOSS = """\
def after_game(beads, square, result):
    if result == "loss":
        while True:
            pass
    beads = list(beads)
    beads[square] += 3 if result == "win" else 1
    return beads
"""
WRONG_AND_SLOW = SLOW_ON_A_LOSS.replace("3 if", "2 if")


def test_a_submission_stopped_by_a_time_limit_is_a_timeout_with_its_reason(tmp_path: Path) -> None:
    submissions = write(
        tmp_path / "submissions",
        {"loops.py": LOOPS, "slow.py": SLOW_ON_A_LOSS, "wrong.py": WRONG_AND_SLOW},
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "menace_course", "grade", str(submissions), "--challenge", "after_game"),
            *("--out", str(out), "--sandbox", "process", "--i-accept-no-sandbox", "--jobs", "2"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    grades = read_grades(out)
    assert {name: row["status"] for name, row in grades.items()} == {
        "loops": "timeout",
        "slow": "timeout",
        "wrong": "failed",
    }
    stopped = "stopped: after_game did not finish in time in 1 test (Example 1"
    assert grades["loops"]["reason"].startswith(stopped)
    assert grades["loops"]["reason"].endswith("; 14 tests could not run after that")
    assert grades["slow"]["score"] == "2"  # what passed before the stop counts
    assert "did not pass; after_game did not finish in time in 1 test" in grades["wrong"]["reason"]
    assert "passed 0, failed 1, timed out 2, errors 0" in done.stdout
    text = re.sub(r"<[^>]+>", "", (out / "report.html").read_text(encoding="utf-8"))
    assert (
        "0 pass every test,\n1 fail some,\n2 were stopped by a time limit before any test found a wrong"
        " answer,\n0 could not be run." in text
    )
    assert "Of those whose tests ran, 3 had checks that did not finish in time" in text
    timed_out = text.split("Timed out", 1)[1].split("Every student", 1)[0]
    assert all(name in timed_out for name in ("loops", "slow", "wrong"))
    if "Could not run" in text:  # the section is there only when someone's tests could not run
        assert "loops" not in text.split("Could not run", 1)[1].split("Timed out", 1)[0]
