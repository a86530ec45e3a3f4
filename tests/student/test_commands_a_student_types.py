"""The commands as a student types them: ``menace show``, and misspelt command names."""

from __future__ import annotations

import pytest

from tests.conftest import run_menace
from tests.support import REPO


@pytest.mark.parametrize(
    "typed, meant",
    [("chek", "check"), ("stat", "start"), ("grades", "grade"), ("valdate", "validate"), ("shwo", "show")],
)
def test_a_misspelt_command_is_answered_with_the_close_one(typed, meant):
    done = run_menace(typed, "x")
    assert done.returncode == 2
    assert f"No such command '{typed}'. Did you mean '{meant}'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_command_like_none_of_them_is_answered_with_the_list():
    done = run_menace("frobnicate")
    assert done.returncode == 2
    assert "The commands are: check, start, step" in done.stderr and "show" in done.stderr


def test_show_prints_the_challenge_text_as_written_when_piped():
    done = run_menace("show", "after_game")
    assert done.returncode == 0
    text = (REPO / "challenges" / "after_game" / "README.md").read_text(encoding="utf-8")
    assert done.stdout == text.rstrip("\n") + "\n"


def test_show_draws_the_markdown_in_a_terminal(menace, monkeypatch):
    import sys

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    ran = menace("show", "opening_box", "--course", REPO)
    assert ran.code == 0
    assert "The first box after the tournament" in ran.out
    assert "## What the page" not in ran.out  # a heading drawn, not its markdown
    assert "menace start opening_box" in ran.out and "menace check opening_box.py" in ran.out


def test_show_accepts_the_file_name_too_and_suggests_a_misspelt_challenge():
    assert run_menace("show", "count_boxes.py").returncode == 0
    done = run_menace("show", "after_gam")
    assert done.returncode == 2 and "did you mean 'after_game'" in done.stderr


@pytest.mark.parametrize("slug", sorted(p.name for p in (REPO / "challenges").iterdir() if p.is_dir()))
def test_each_starter_says_the_rules_in_short_and_where_the_whole_text_is(slug):
    import ast

    from menace_course import catalog
    from menace_course.course import Course

    challenge = catalog.load_challenge(Course(REPO), slug)
    tree = ast.parse(challenge.starter.read_text(encoding="utf-8"))
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == challenge.function)
    doc = ast.get_docstring(function)
    assert doc and len(doc.splitlines()) >= 3, "the rules, in short"
    assert doc.splitlines()[-1] == f"The whole text: menace show {slug}"


def test_an_editable_install_finds_its_clones_course_from_any_folder(tmp_path):
    # The package is imported from this clone (as after `pip install -e .`): outside it,
    # list, show, start and check use the clone's course, as `menace step` always did.
    listed = run_menace("list", cwd=tmp_path)
    assert listed.returncode == 0 and "after_game" in listed.stdout, listed.stderr
    assert run_menace("show", "after_game", cwd=tmp_path).returncode == 0
    assert run_menace("start", "after_game", cwd=tmp_path).returncode == 0
    checked = run_menace("check", "after_game.py", "--format", "json", cwd=tmp_path)
    assert checked.returncode == 1 and '"challenge": "after_game"' in checked.stdout


def test_an_author_outside_any_course_is_not_given_the_clone_of_the_package(tmp_path):
    made = run_menace("new", "my_challenge", cwd=tmp_path)
    assert made.returncode == 2 and "no course here" in made.stderr
    assert not (REPO / "challenges" / "my_challenge").exists()
