"""The three challenges written with ``menace new``: their references follow the lesson's own code,
and their hidden tests look at the positions they mean to."""

from __future__ import annotations

import importlib.util
import itertools
import random
import sys
from pathlib import Path

import pytest

from menace_course.checking.testing import use_course_references
from menace_course.lesson import engine, noughts

REPO = Path(__file__).resolve().parents[2]


def load(path):
    spec = importlib.util.spec_from_file_location(f"authoring_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def box_names():
    use_course_references(REPO / "reference")
    return load(REPO / "hidden_tests" / "new_box" / "test_new_box.py").BOX_NAMES


def test_name_agrees_with_the_lesson_on_every_board():
    reference = load(REPO / "reference" / "name.py")
    for squares in itertools.product(" OX", repeat=9):
        board = list(squares)
        assert reference.name(board) == noughts.name(board), board


def test_the_new_box_tests_use_menaces_304_boxes(box_names):
    assert len(box_names) == 304
    assert {"    O XOX", "       OX", "  XOO XXO", " " * 9} <= set(box_names)


def test_new_box_agrees_with_the_engine_on_every_box(box_names):
    reference = load(REPO / "reference" / "new_box.py")
    for position in box_names:
        got = reference.new_box(position)
        assert got == engine.new_box(position)
        assert list(got) == sorted(got)


@pytest.mark.parametrize("opponent", ["perfect", "random"])
def test_play_game_replays_the_engine_game_for_game(opponent):
    reference = load(REPO / "reference" / "play_game.py")
    player = {"perfect": noughts.perfect_move, "random": noughts.random_move}[opponent]
    ours, lessons = {}, {}
    for seed in range(1, 121):
        result = reference.play_game(ours, opponent, seed)
        random.seed(seed)
        assert result == engine.play_game(lessons, player)
        assert ours == lessons


def test_play_game_learns_to_open_in_the_centre_against_perfect():
    reference = load(REPO / "reference" / "play_game.py")
    boxes = {}
    for seed in range(1, 301):
        reference.play_game(boxes, "perfect", seed)
    first = boxes[" " * 9]
    assert first[4] > 10 * (first[0] + first[1])


@pytest.mark.parametrize("slug", ["name", "new_box", "play_game"])
def test_the_references_import_only_the_standard_library(slug):
    import ast

    tree = ast.parse((REPO / "reference" / f"{slug}.py").read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= set(sys.stdlib_module_names)
