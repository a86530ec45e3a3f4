"""What the feedback says is true and said once: skipped checks, tabs, the verdict."""

from __future__ import annotations

import pytest

from tests.conftest import run_menace

pytestmark = pytest.mark.bwrap


def test_checks_not_run_after_a_timeout_are_explained_once(tmp_path):
    path = tmp_path / "after_game.py"
    path.write_text("def after_game(beads, square, result):\n    while True:\n        pass\n")
    done = run_menace("check", str(path), timeout=120)
    assert done.returncode == 1
    reason = (
        "not checked: the function took too long, ran out of memory, stopped Python "
        "or gave back too large a value earlier"
    )
    assert done.stdout.count(reason) == 1
    assert f"The 14 checks marked – were {reason}." in done.stdout


def test_a_tab_among_spaces_gets_advice_about_tabs(tmp_path):
    path = tmp_path / "after_game.py"
    path.write_text("def after_game(beads, square, result):\n    new = list(beads)\n\treturn new\n")
    done = run_menace("check", str(path))
    assert done.returncode == 1
    assert "TabError: inconsistent use of tabs and spaces in indentation" in done.stdout
    assert "indented with a tab" in done.stdout and "missing `:`" not in done.stdout


def test_a_missing_indent_gets_advice_about_indenting(tmp_path):
    path = tmp_path / "after_game.py"
    path.write_text("def after_game(beads, square, result):\nreturn beads\n")
    done = run_menace("check", str(path))
    assert "IndentationError" in done.stdout and "start further in than its `def` line" in done.stdout


@pytest.mark.parametrize(
    "text",
    ["", "# my answer to after_game\n\n# to do\n", '"""After the game."""\n# soon\n'],
    ids=["empty", "comments", "docstring"],
)
def test_a_file_with_no_code_is_nothing_handed_in_not_a_spelling_mistake(tmp_path, text):
    mine = tmp_path / "after_game.py"
    mine.write_text(text)
    done = run_menace("check", str(mine), "--challenge", "after_game")
    assert done.returncode == 1
    assert "has no code yet: nothing was handed in" in done.stdout
    assert "spelling" not in done.stdout
