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


@pytest.mark.parametrize(
    ("params", "position", "kind", "said"),
    [
        (("beads", "square", "result"), 1, "list", "leave `beads` as it was given"),
        (("board",), 1, "list", "`new = list(board)`"),
        (("boxes", "seed"), 1, "dict", "`new = dict(boxes)`"),
        (("box", "games"), 2, "list", "leave `games` as it was given"),
    ],
)
def test_the_changed_argument_advice_names_the_challenges_own_argument_and_its_kind(
    params, position, kind, said
):
    from types import SimpleNamespace

    from menace_course.feedback import environment
    from tests.support import REPO

    env = environment(REPO / "feedback_templates", "text")
    report = SimpleNamespace(params=params)
    detail = SimpleNamespace(note=f"argument {position} was changed", got_type=kind)
    words = env.from_string('{% import "words.j2" as w %}{{ w.advice("changed_input", r, d) }}')
    text = words.render(r=report, d=detail)
    assert said in text
    assert "beads" not in text or "beads" in params  # never after_game's words for another challenge


def test_a_hidden_changed_argument_gets_advice_with_the_challenges_argument_names_and_no_kind():
    from types import SimpleNamespace

    from menace_course.feedback import environment
    from tests.support import REPO

    env = environment(REPO / "feedback_templates", "text")
    words = env.from_string('{% import "words.j2" as w %}{{ w.advice("changed_input", r, d) }}')
    text = words.render(r=SimpleNamespace(params=("board",)), d=SimpleNamespace(note=None, got_type=None))
    assert "(board)" in text and "beads" not in text
