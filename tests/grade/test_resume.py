"""Killing ``menace grade`` with ``kill -9`` and running it again: complete, each graded once, identical."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from grade_support import (
    NO_FLOOR,
    RIGHT,
    SYNTAX_ERROR,
    read_grades,
    read_records,
    start_menace,
    without_timings,
    write,
)

from menace_course.grading.store import RESULTS_DIR

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

ANSWERS = [RIGHT, NO_FLOOR, SYNTAX_ERROR]
CLASS = {f"student{i:02d}.py": ANSWERS[i % 3] for i in range(16)}


def grade(submissions: Path, out: Path) -> str:
    done = start_menace("grade", submissions, "--challenge", "after_game", "--out", out, "--jobs", "1")
    printed, errors = done.communicate(timeout=600)
    assert done.returncode == 0, errors
    return printed


def records_on_disk(out: Path) -> list[Path]:
    return sorted((out / RESULTS_DIR).glob("*.json"))


def kill_part_way(submissions: Path, out: Path, at_least: int) -> int:
    """Start grading, SIGKILL its whole process group once ``at_least`` records exist; return how many did."""
    running = start_menace("grade", submissions, "--challenge", "after_game", "--out", out, "--jobs", "1")
    deadline = time.monotonic() + 300
    while len(records_on_disk(out)) < at_least and running.poll() is None:
        assert time.monotonic() < deadline, "grading made no progress"
        time.sleep(0.05)
    os.killpg(running.pid, signal.SIGKILL)
    running.communicate()
    assert running.returncode == -signal.SIGKILL, "the batch finished before it could be killed"
    return len(records_on_disk(out))


def test_a_batch_killed_with_sigkill_finishes_when_run_again_identical_to_an_uninterrupted_one(
    tmp_path: Path,
) -> None:
    submissions = write(tmp_path / "submissions", CLASS)
    killed_out, clean_out = tmp_path / "killed", tmp_path / "clean"

    done_before_kill = kill_part_way(submissions, killed_out, at_least=3)
    for path in records_on_disk(killed_out):  # nothing half-written
        assert json.loads(path.read_text(encoding="utf-8"))["grading"]["key"] == path.stem

    resumed = grade(submissions, killed_out)
    assert f"Graded {len(CLASS) - done_before_kill} submissions" in resumed
    assert f"{done_before_kill} already graded" in resumed
    grade(submissions, clean_out)

    assert (killed_out / "grades.csv").read_bytes() == (clean_out / "grades.csv").read_bytes()
    assert len(read_grades(killed_out)) == len(CLASS)
    killed, clean = read_records(killed_out), read_records(clean_out)
    assert without_timings(killed) == without_timings(clean)
    for key in (r["grading"]["key"] for r in clean.values()):
        for suffix in (".md", ".html"):
            name = f"feedback/{key}{suffix}"
            assert (killed_out / name).read_text() == (clean_out / name).read_text()
    assert not list(killed_out.rglob("*.tmp"))
