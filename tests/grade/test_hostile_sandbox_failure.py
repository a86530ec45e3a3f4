"""A sandbox that passes bubblewrap's probe but cannot drop to ``nobody`` is the grader's failure.

Issue 8, item 11: in a user namespace that maps only root, ``bwrap`` starts, but the
harness cannot become uid 65534. A correct answer once scored 0 with "stopped Python
while it was loading". Each way in is run here for real in such a namespace
(``unshare --user --map-root-user``): ``check`` exits 2 naming the sandbox, ``grade``
records ``grader_error``, and the Gradescope runner tells the student the fault is the
grader's, never to fix their file.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.bwrap]

REPO = Path(__file__).resolve().parents[2]
CORRECT = REPO / "examples" / "after_game_student.py"


def _root_only_namespace_works() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "--user", "--map-root-user", "true"], capture_output=True, check=False)
    return done.returncode == 0


needs_root_only_namespace = pytest.mark.skipif(
    not _root_only_namespace_works(), reason="needs root and unshare --user --map-root-user"
)


def in_root_only_namespace(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ...argv`` as root of a user namespace in which uid 65534 does not exist."""
    command = ["unshare", "--user", "--map-root-user", sys.executable, *argv]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, cwd=cwd)


@needs_root_only_namespace
@pytest.mark.parametrize("sandbox", ["bwrap", "process"])
def test_check_says_the_sandbox_could_not_start_and_exits_2(tmp_path, sandbox):
    argv = ["-m", "menace_course", "check", str(CORRECT), "--sandbox", sandbox, "--course", str(REPO)]
    done = in_root_only_namespace(*argv, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the sandbox could not start on this machine" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert "while it was loading" not in done.stdout


@needs_root_only_namespace
def test_grade_records_a_grader_error_not_a_zero_for_the_student(tmp_path):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    shutil.copy(CORRECT, submissions / "alice.py")
    out = tmp_path / "out"
    done = in_root_only_namespace(
        "-m", "menace_course", "grade", str(submissions), "--challenge", "after_game", "--out", str(out),
        "--course", str(REPO), "--jobs", "1", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    with (out / "grades.csv").open(newline="", encoding="utf-8") as handle:
        (row,) = csv.DictReader(handle)
    assert row["status"] == "grader_error"
    assert row["reason"].startswith("the sandbox could not start")


@needs_root_only_namespace
def test_the_gradescope_runner_says_the_fault_is_the_graders(tmp_path):
    (tmp_path / "submission").mkdir()
    shutil.copy(CORRECT, tmp_path / "submission" / "after_game.py")
    # The runner grades with the course bundled into its wheel; here, this repository's.
    runner = (
        "import sys; from pathlib import Path; import menace_course.course as course; "
        f"course.BUNDLED_COURSE = Path({str(REPO)!r}); "
        "from menace_course.autograders.gradescope import main; sys.exit(main(sys.argv[1:]))"
    )
    done = in_root_only_namespace(
        "-c", runner, "--root", str(tmp_path), "--challenge", "after_game", "--sandbox", "bwrap", cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert "the fault is in the grader, not in your code" in results["output"]
    assert "Fix this first" not in results["output"]
    assert "Traceback" not in results["output"]
