"""``menace check FILE`` without ``--challenge``: the real cause, whatever the file is.

A file that cannot be read, or that misspells the function, is told so, exactly as with
``--challenge``; "defines none of the challenges' functions" is kept for a file that
really has nothing to do with any challenge.
"""

from __future__ import annotations

import os

import pytest

from tests.conftest import check_json, run_menace

pytestmark = pytest.mark.bwrap


def test_a_file_too_large_to_check_is_told_its_size(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("# " + "x" * (5 * 1024 * 1024) + "\n")
    done = run_menace("check", str(path))
    assert done.returncode == 2
    assert "mine.py cannot be checked: the file is larger than 512 KB" in done.stderr
    assert "defines none" not in done.stderr and "Traceback" not in done.stderr


def test_a_binary_file_is_told_it_is_not_text(tmp_path):
    path = tmp_path / "mine.py"
    path.write_bytes(os.urandom(64) + b"\x00" + os.urandom(3000))
    done = run_menace("check", str(path))
    assert done.returncode == 2
    assert "mine.py cannot be checked: the file is not text" in done.stderr


def test_an_unreadable_file_named_after_a_challenge_gets_that_challenges_report(tmp_path):
    path = tmp_path / "after_game.py"
    path.write_bytes(b"\x00\x01\x02" * 100)
    code, report = check_json(path)
    assert code == 2 and report["challenge"] == "after_game" and report["status"] == "unreadable"
    assert "not text" in report["load_problem"]["message"]


def test_a_misspelt_function_is_checked_against_the_challenge_it_misspells(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("def after_gme(beads, square, result):\n    return list(beads)\n")
    code, report = check_json(path)
    assert code == 1 and report["challenge"] == "after_game" and report["status"] == "no_function"
    assert report["load_problem"]["detail"]["note"] == "'after_gme' is defined instead"
    text = run_menace("check", str(path)).stdout
    assert "No function named after_game in mine.py" in text and "'after_gme' is defined instead" in text


def test_a_file_with_nothing_to_do_with_any_challenge_is_told_so(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("def shopping_list():\n    return ['eggs']\n")
    done = run_menace("check", str(path))
    assert done.returncode == 2
    assert "mine.py defines none of the challenges' functions" in done.stderr
    assert "--challenge SLUG" in done.stderr
