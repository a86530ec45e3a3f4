"""``menace check`` as a student runs it: exit codes, formats, and what hidden tests reveal."""

import json

import pytest

from tests.conftest import check_json, run_menace

RIGHT = """def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return new
"""
NO_FLOOR = """def after_game(beads, square, result):
    new = list(beads)
    new[square] += {'win': 3, 'draw': 1, 'loss': -1}[result]
    return new
"""


@pytest.fixture
def right(tmp_path):
    path = tmp_path / "after_game.py"
    path.write_text(RIGHT)
    return path


@pytest.fixture
def no_floor(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(NO_FLOOR)
    return path


def test_a_right_answer_passes_with_exit_0_and_the_documented_json(right):
    code, report = check_json(right)
    assert code == 0
    assert report["passed"] is True and report["score"] == report["max_score"] > 0
    assert report["challenge"] == "after_game" and report["sandbox"] in ("bwrap", "process")
    for test in report["tests"]:
        assert set(test) >= {"name", "kind", "outcome", "message"}
        assert test["kind"] in ("example", "hidden", "property") and test["outcome"] == "passed"


def test_a_wrong_answer_fails_with_exit_1_and_names_the_hidden_test_and_hint(no_floor):
    code, report = check_json(no_floor)
    assert code == 1 and report["passed"] is False
    failed = [t for t in report["tests"] if t["outcome"] == "failed"]
    assert "loss_on_an_empty_colour_stays_at_zero" in {t["name"] for t in failed}
    assert all(t["hint"] for t in failed)


def test_hidden_tests_never_reveal_their_inputs_or_expected_values(no_floor):
    _, report = check_json(no_floor)
    for test in report["tests"]:
        if test["is_visible"] or test["detail"] is None:
            continue
        detail = test["detail"]
        assert detail["call"] is None and detail["expected"] is None and detail["got"] is None
    text = run_menace("check", str(no_floor)).stdout
    assert "[3, 0, 3, 0, 3, 0, 3, 0, 3]" not in text  # a hidden test's input


def test_the_text_feedback_shows_the_visible_call_expected_and_got(tmp_path):
    path = tmp_path / "win_plus_one.py"
    path.write_text(NO_FLOOR.replace("'win': 3", "'win': 1"))
    done = run_menace("check", str(path))
    assert done.returncode == 1
    assert "after_game([4, 4, 0, 0, 4, 0, 0, 0, 0], 4, 'win')" in done.stdout
    assert "expected: [4, 4, 0, 0, 7, 0, 0, 0, 0]" in done.stdout
    assert "got:      [4, 4, 0, 0, 5, 0, 0, 0, 0]" in done.stdout
    assert "first difference: position 4" in done.stdout


@pytest.mark.parametrize("fmt, marker", [("markdown", "## Back into the box"), ("html", "<!doctype html>")])
def test_markdown_and_html_formats(no_floor, fmt, marker):
    done = run_menace("check", str(no_floor), "--format", fmt)
    assert done.returncode == 1 and marker in done.stdout


def test_html_escapes_what_the_student_printed(tmp_path):
    path = tmp_path / "loud.py"
    path.write_text(
        RIGHT.replace("    return new", "    print('<script>alert(1)</script>')\n    return None")
    )
    done = run_menace("check", str(path), "--format", "html")
    assert "<script>alert" not in done.stdout and "&lt;script&gt;" in done.stdout


def test_a_missing_file_is_exit_2_with_one_line(tmp_path):
    done = run_menace("check", str(tmp_path / "nope.py"))
    assert done.returncode == 2 and "no such file" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_challenge_suggests_the_near_miss(right):
    done = run_menace("check", str(right), "--challenge", "after_gmae")
    assert done.returncode == 2 and "did you mean 'after_game'" in done.stderr


def test_a_file_answering_no_challenge_is_exit_2_with_advice(tmp_path):
    path = tmp_path / "other.py"
    path.write_text("def hello():\n    return 1\n")
    done = run_menace("check", str(path))
    assert done.returncode == 2 and "--challenge" in done.stderr


def test_a_syntax_error_is_found_from_the_file_and_explained(tmp_path):
    path = tmp_path / "after_game.py"
    path.write_text("def after_game(beads, square, result)\n    return beads\n")
    code, report = check_json(path)
    assert code == 1 and report["status"] == "syntax_error"
    assert all(t["outcome"] == "skipped" for t in report["tests"])
    assert "colon" in run_menace("check", str(path)).stdout or "':'" in run_menace("check", str(path)).stdout


def test_a_notebook_is_checked_from_its_code_cells(tmp_path):
    notebook = {
        "cells": [
            {"cell_type": "code", "source": RIGHT, "metadata": {}, "outputs": [], "execution_count": None}
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "answer.ipynb"
    path.write_text(json.dumps(notebook))
    code, report = check_json(path)
    assert code == 0 and report["passed"]


def test_the_process_sandbox_is_named_as_not_isolated(right):
    done = run_menace("check", str(right), "--sandbox", "process")
    assert done.returncode == 0 and "sandbox: process (not isolated)" in done.stdout


def test_list_shows_the_challenges():
    done = run_menace("list")
    assert done.returncode == 0 and "after_game" in done.stdout
