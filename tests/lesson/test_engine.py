"""The MENACE engine: boxes, beads, games, learning, and MENACE as O."""

from __future__ import annotations

import copy
import dataclasses
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lesson_support import canonical, reachable

from menace_course.lesson.engine import (
    REWARD,
    START,
    START_O,
    Boxes,
    Settings,
    choose_move,
    draw_bead,
    new_box,
    play_game,
    play_two_learners,
)
from menace_course.lesson.noughts import perfect_move, random_move, to_move

REACHABLE = reachable()
OPEN = sorted(board for board, marks in REACHABLE.items() if board == canonical(board) and marks < 8)


def test_the_pages_boxes() -> None:
    assert new_box(" " * 9) == {0: 4, 1: 4, 4: 4}
    assert new_box("    O   X") == {0: 3, 1: 3, 2: 3, 5: 3}


@given(st.sampled_from(OPEN))
def test_a_new_box_has_one_colour_for_each_different_move(position: str) -> None:
    mark = to_move(position)
    box = new_box(position, mark)
    classes: dict[str, int] = {}
    for s in (s for s in range(9) if position[s] == " "):
        classes.setdefault(canonical(position[:s] + mark + position[s + 1 :]), s)
    assert list(box) == sorted(classes.values())
    beads = (START if mark == "X" else START_O)[position.count(" ")]
    assert set(box.values()) == {beads}


def test_o_boxes_put_o_on_the_square() -> None:
    # After X in the centre, O has two different moves: a corner or a side.
    assert new_box("    X    ", "O") == {0: 4, 1: 4}


@given(st.integers(0, 10_000))
def test_draw_bead_is_random_choices_with_the_bead_counts(seed: int) -> None:
    box = {0: 5, 3: 0, 4: 2, 8: 1}
    random.seed(seed)
    drawn = [draw_bead(box) for _ in range(20)]
    random.seed(seed)
    expected = [random.choices([0, 3, 4, 8], weights=[5, 0, 2, 1])[0] for _ in range(20)]
    assert drawn == expected
    assert 3 not in drawn


@given(st.integers(0, 10_000), st.sampled_from(["X", "O"]))
def test_every_drawn_bead_gets_the_reward_for_the_result(seed: int, mark: str) -> None:
    random.seed(seed)
    boxes: Boxes = {}
    for _ in range(5):
        play_game(boxes, random_move, mark=mark)
    before = copy.deepcopy(boxes)
    result = play_game(boxes, random_move, mark=mark)
    for position, box in boxes.items():
        old = before.get(position) or new_box(position, mark)
        for square, beads in box.items():
            if beads != old[square]:
                assert beads == max(0, old[square] + REWARD[result])


def test_boxes_are_named_for_the_positions_where_menace_moves() -> None:
    random.seed(7)
    for mark in ("X", "O"):
        boxes: Boxes = {}
        for _ in range(200):
            play_game(boxes, random_move, mark=mark)
        assert all(to_move(position) == mark for position in boxes)
        assert all(position == canonical(position) for position in boxes)


@pytest.mark.parametrize("refill", [True, False])
def test_an_empty_box_resigns_and_is_refilled_only_with_the_rule(refill: bool) -> None:
    boxes: Boxes = {" " * 9: {0: 0, 1: 0, 4: 0}}
    result = play_game(boxes, perfect_move, Settings(refill=refill))
    assert result == "loss"
    assert boxes[" " * 9] == ({0: 4, 1: 4, 4: 4} if refill else {0: 0, 1: 0, 4: 0})


def test_menace_as_o_against_perfect_never_wins_and_learns_to_draw() -> None:
    random.seed(2)
    boxes: Boxes = {}
    results = [play_game(boxes, perfect_move, mark="O") for _ in range(400)]
    assert "win" not in results
    assert results[-50:].count("draw") > results[:50].count("draw")


def test_two_learners_each_keep_boxes_for_their_own_moves() -> None:
    random.seed(4)
    x_boxes: Boxes = {}
    o_boxes: Boxes = {}
    results = [play_two_learners(x_boxes, o_boxes) for _ in range(300)]
    assert set(results) <= {"win", "draw", "loss"}
    assert all(to_move(p) == "X" for p in x_boxes)
    assert all(to_move(p) == "O" for p in o_boxes)
    assert x_boxes[" " * 9] != {0: 4, 1: 4, 4: 4}  # X learned from its games


def test_settings_change_the_beads_and_rewards() -> None:
    rich = Settings(start={9: 10, 7: 5, 5: 2, 3: 1}, reward={"win": 1, "draw": 0, "loss": -2})
    assert new_box(" " * 9, start=rich.start) == {0: 10, 1: 10, 4: 10}
    random.seed(1)
    boxes: Boxes = {}
    result = play_game(boxes, perfect_move, rich)
    drawn = [s for s, beads in boxes[" " * 9].items() if beads != 10]
    assert [boxes[" " * 9][s] for s in drawn] == [10 + rich.reward[result]]


def test_settings_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().refill = False  # type: ignore[misc]


@given(st.sampled_from(sorted(b for b, m in REACHABLE.items() if m < 9)), st.integers(0, 99))
def test_choose_move_plays_an_empty_square_and_learns_nothing(board: str, seed: int) -> None:
    random.seed(seed)
    boxes: Boxes = {}
    play_game(boxes, random_move)
    before = copy.deepcopy(boxes)
    assert board[choose_move(boxes, list(board))] == " "
    assert boxes == before
