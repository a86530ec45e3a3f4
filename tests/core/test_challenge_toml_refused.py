"""A wrong type or an unknown key in challenge.toml stops every command with one clear line.

The line names the file, the key and what was expected; the exit code is 2 (the
course's mistake, not a failed check) and no traceback is shown. ``menace serve`` says
so when it starts, not at a student's first check.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO

BROKEN = {
    "a string for a number": (
        '\n[limits]\ncall_seconds = "2"\n',
        "limits.call_seconds: expected a number, got the string '2'",
    ),
    "an unknown key": ("\n[limits]\ncall_second = 2\n", "[limits]: unknown key 'call_second'"),
}


@pytest.fixture(params=sorted(BROKEN))
def broken(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    """A copy of the course whose after_game/challenge.toml is broken, and what must be said."""
    course = tmp_path / "course"
    for part in ("challenges", "hidden_tests", "reference", "feedback_templates"):
        shutil.copytree(REPO / part, course / part)
    added, message = BROKEN[request.param]
    toml = course / "challenges" / "after_game" / "challenge.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + added, encoding="utf-8")
    return course, f"{toml}: {message}"


COMMANDS = {
    "check": ["check", "{answer}"],
    "check --challenge": ["check", "{answer}", "--challenge", "after_game"],
    "validate": ["validate", "after_game"],
    "list": ["list"],
    "grade": ["grade", "{submissions}", "--challenge", "after_game", "--out", "{out}"],
    "serve": ["serve", "--port", "0", "--db", "sqlite:///{db}"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_broken_challenge_toml_is_one_line_naming_file_key_and_expected_with_exit_2(
    broken, command, tmp_path
):
    course, message = broken
    (tmp_path / "submissions").mkdir()
    answer = tmp_path / "submissions" / "after_game.py"
    shutil.copy(REPO / "reference" / "after_game.py", answer)
    places = {"answer": answer, "submissions": tmp_path / "submissions", "out": tmp_path / "out"}
    args = [a.format(**places, db=tmp_path / "s.sqlite3") for a in COMMANDS[command]]
    done = subprocess.run(
        [sys.executable, "-m", "menace_course", *args, "--course", str(course)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"menace: {message}")
    assert "Traceback" not in done.stderr + done.stdout
