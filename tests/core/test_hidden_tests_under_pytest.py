"""Hidden tests are plain pytest: they run as they are, against the reference or a file."""

import subprocess
import sys

from tests.conftest import REPO


def run_pytest(*args):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_hidden_tests_pass_against_the_reference_under_plain_pytest():
    done = run_pytest("hidden_tests/after_game")
    assert done.returncode == 0, done.stdout[-2000:]
    assert "passed" in done.stdout


def test_a_buggy_file_fails_the_hidden_tests_under_plain_pytest():
    done = run_pytest("hidden_tests/after_game", "--submission", "examples/after_game_buggy.py")
    assert done.returncode == 1
    assert "test_loss_on_an_empty_colour_stays_at_zero FAILED" in done.stdout or (
        "FAILED hidden_tests/after_game/test_after_game.py::test_loss_on_an_empty_colour_stays_at_zero"
        in done.stdout
    )
