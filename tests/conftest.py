"""Shared fixtures: where the course is, how to run ``menace``, and the bubblewrap rule.

Tests marked ``bwrap`` need bubblewrap. Where it cannot run they are skipped, except under
CI (``CI`` set), where a missing sandbox is an install problem and the test fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support import REPO, Ran

# Checks run in their own process: a warm checker started by one test would outlive it
# (tests/check/test_warm_checker.py turns it on for itself, and stops what it starts).
os.environ["MENACE_WARM"] = "off"


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


@pytest.fixture
def menace(capsys: pytest.CaptureFixture[str]) -> Callable[..., Ran]:
    """Run ``menace ARGS`` in this process, as the console script does."""
    from menace_course.cli import main

    def run(*args: str | Path) -> Ran:
        with pytest.raises(SystemExit) as done:
            main([str(a) for a in args])
        out, err = capsys.readouterr()
        code = done.value.code
        return Ran(code if isinstance(code, int) else 1, out, err)

    return run


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database of its own, dropped afterwards (skipped without a server,
    a failure under CI: ``tests.service.support.require_postgres``)."""
    from tests.service.support import postgres_database

    with postgres_database() as url:
        yield url
