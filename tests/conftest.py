"""Shared fixtures: where the course is, how to run ``menace``, and the bubblewrap rule.

Tests marked ``bwrap`` need bubblewrap. Where it cannot run they are skipped, except under
CI (``CI`` set), where a missing sandbox is an install problem and the test fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("bwrap") is None:
        return
    from menace_course.sandbox.launch import bwrap_works

    if bwrap_works():
        return
    if os.environ.get("CI"):
        pytest.fail("bubblewrap cannot run here, but CI must run the sandbox tests (install bubblewrap)")
    pytest.skip("bubblewrap cannot run on this machine")


@pytest.fixture
def repo() -> Path:
    return REPO


def run_menace(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run the real ``menace`` command (as a student would) and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "menace_course", *args],
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def check_json(path: Path, *extra: str) -> tuple[int, dict]:
    """``menace check PATH --format json``: the exit code and the parsed report."""
    done = run_menace("check", str(path), "--format", "json", *extra)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)
