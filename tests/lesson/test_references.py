"""The three challenges' reference solutions, against independent implementations."""

from __future__ import annotations

import copy
from collections import defaultdict

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lesson_support import canonical, line_of_three, load_reference, reachable

after_game = load_reference("after_game").after_game
count_boxes = load_reference("count_boxes").count_boxes
opening_box = load_reference("opening_box").opening_box

RESULTS = ["win", "draw", "loss"]
beads_lists = st.lists(st.integers(0, 500), min_size=9, max_size=9)


# ★ after_game


def test_after_game_the_pages_example() -> None:
    assert after_game([4, 4, 0, 0, 4, 0, 0, 0, 0], 4, "win") == [4, 4, 0, 0, 7, 0, 0, 0, 0]


@given(beads_lists, st.integers(0, 8), st.sampled_from(RESULTS))
def test_after_game_changes_only_the_drawn_colour_by_michies_rule(
    beads: list[int], square: int, result: str
) -> None:
    given_list = list(beads)
    new = after_game(beads, square, result)
    assert beads == given_list and new is not beads
    assert type(new) is list and len(new) == 9 and all(type(n) is int for n in new)
    change = new[square] - beads[square]
    expected = {"win": 3, "draw": 1, "loss": -1 if beads[square] > 0 else 0}[result]
    assert change == expected
    assert [n for i, n in enumerate(new) if i != square] == [n for i, n in enumerate(beads) if i != square]


def test_after_game_refuses_an_unknown_result() -> None:
    with pytest.raises(ValueError, match="'lose'"):
        after_game([4] * 9, 0, "lose")


# ★★ count_boxes


def _independent_counts(mark: str) -> list[int]:
    """Boxes by move, from every reachable board (no pruning), named by coordinates."""
    names: dict[int, set[str]] = defaultdict(set)
    for board, marks in reachable().items():
        mover = "X" if marks % 2 == 0 else "O"
        if mover == mark and not line_of_three(board) and board.count(" ") > 1:
            names[marks].add(canonical(board))
    return [len(names[m]) for m in sorted(names)]


def test_count_boxes_for_x_is_step_1s_numbers() -> None:
    assert count_boxes("X") == [1, 12, 108, 183] == _independent_counts("X")


def test_count_boxes_for_o_counts_the_boxes_before_its_four_moves() -> None:
    assert count_boxes("O") == _independent_counts("O")
    assert len(count_boxes("O")) == 4


@pytest.mark.parametrize("mark", ["x", "", "XO", " ", None, 1])
def test_count_boxes_refuses_anything_but_x_or_o(mark: object) -> None:
    with pytest.raises(ValueError, match="'X' or 'O'"):
        count_boxes(mark)


# ★★★ opening_box

MICHIE = [4, 4, 0, 0, 4, 0, 0, 0, 0]


@st.composite
def game_records(draw: st.DrawFn) -> list[int]:
    """A real game's squares, X first: to a line of three, a full board, or a resignation."""
    order = draw(st.permutations(range(9)))
    board = [" "] * 9
    for turn, square in enumerate(order):
        board[square] = "X" if turn % 2 == 0 else "O"
        if line_of_three("".join(board)):
            return order[: turn + 1]
    stop = draw(st.integers(0, 9))  # MENACE may resign before its move, when X is to play
    return order[: stop - stop % 2] if stop < 9 else order


def _independent_opening(games: list[list[int]]) -> list[int]:
    beads = list(MICHIE)
    for moves in games:
        if not moves:
            continue
        board = [" "] * 9
        for turn, square in enumerate(moves):
            board[square] = "XO"[turn % 2]
        line = line_of_three("".join(board))
        change = {"X": 3, "O": -1, None: 1 if " " not in board else -1}[line]
        row, column = divmod(moves[0], 3)
        colour = 4 if (row, column) == (1, 1) else 1 if 1 in (row, column) else 0
        beads[colour] = max(0, beads[colour] + change)
    return beads


def test_opening_box_the_pages_example() -> None:
    assert opening_box([[8, 4, 0, 2, 6, 3, 7]]) == [7, 4, 0, 0, 4, 0, 0, 0, 0]


def test_opening_box_with_no_games_is_michies_first_box() -> None:
    assert opening_box([]) == MICHIE


@given(st.lists(game_records(), max_size=40))
def test_opening_box_matches_an_independent_replay(games: list[list[int]]) -> None:
    given_games = copy.deepcopy(games)
    result = opening_box(games)
    assert games == given_games
    assert result == _independent_opening(games)
    assert len(result) == 9 and min(result) >= 0


@given(st.lists(game_records(), max_size=10), st.integers(0, 10))
def test_opening_box_skips_an_empty_record(games: list[list[int]], where: int) -> None:
    assert opening_box([*games[:where], [], *games[where:]]) == opening_box(games)


def test_opening_box_a_resignation_is_a_loss() -> None:
    assert opening_box([[4, 0]]) == [4, 4, 0, 0, 3, 0, 0, 0, 0]
