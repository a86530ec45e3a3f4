"""The board: lines, names and symmetries, and the Perfect and Random players."""

from __future__ import annotations

import ast
import random
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lesson_support import canonical, line_of_three, reachable, versions

from menace_course.lesson import noughts, pixels
from menace_course.lesson.noughts import WAYS, best_moves, name, perfect_move, random_move, winner

boards = st.lists(st.sampled_from(" XO"), min_size=9, max_size=9).map("".join)
REACHABLE = reachable()


@given(boards)
def test_winner_names_a_mark_that_has_a_line_of_three(board: str) -> None:
    found = winner(board)
    if found is None:
        assert line_of_three(board) is None
    else:
        other = "O" if found == "X" else "X"
        assert line_of_three(board.replace(other, " ")) == found


def test_the_ways_are_the_eight_symmetries_with_the_identity_first() -> None:
    assert WAYS[0] == list(range(9))
    board = "abcdefghi"
    made = {"".join(board[i] for i in way) for way in WAYS}
    assert made == set(versions(board))
    assert len(made) == 8


@given(boards)
def test_name_is_the_smallest_version_and_the_same_for_all_eight(board: str) -> None:
    position, _ = name(board)
    assert position == canonical(board)
    assert {name(version)[0] for version in versions(board)} == {position}


@given(boards, st.sampled_from("XO"))
def test_a_move_on_the_name_is_played_on_the_board_through_the_way(board: str, mark: str) -> None:
    position, way = name(board)
    assert all(position[s] == board[way[s]] for s in range(9))
    for s in (s for s in range(9) if position[s] == " "):
        on_name = position[:s] + mark + position[s + 1 :]
        on_board = list(board)
        on_board[way[s]] = mark
        assert canonical("".join(on_board)) == canonical(on_name)


def test_the_pages_example_name() -> None:
    assert name(["X", " ", " ", " ", "O", " ", " ", " ", " "])[0] == "    O   X"


@cache
def _score(board: str) -> int:
    """An independent minimax: +10 - marks for a win of the player to move, draw 0."""
    me = "X" if board.count(" ") % 2 == 1 else "O"
    scores = []
    for s in (s for s in range(9) if board[s] == " "):
        after = board[:s] + me + board[s + 1 :]
        if line_of_three(after):
            scores.append(10 - (9 - after.count(" ")))
        elif " " not in after:
            scores.append(0)
        else:
            scores.append(-_score(after))
    return max(scores)


def _independent_best(board: str) -> list[int]:
    me = "X" if board.count(" ") % 2 == 1 else "O"
    scores = {}
    for s in (s for s in range(9) if board[s] == " "):
        after = board[:s] + me + board[s + 1 :]
        if line_of_three(after):
            scores[s] = 10 - (9 - after.count(" "))
        else:
            scores[s] = 0 if " " not in after else -_score(after)
    return [s for s in scores if scores[s] == max(scores.values())]


def test_best_moves_match_an_independent_minimax_on_every_position() -> None:
    for board in REACHABLE:
        if not line_of_three(board) and " " in board:
            assert best_moves(board) == _independent_best(board), board


def _never_loses(board: str, me: str, seen: dict[str, bool]) -> bool:
    """Does the Perfect player (``me``) avoid losing from here, whatever the other side does,
    whichever of its best squares it picks?"""
    if board in seen:
        return seen[board]
    if line_of_three(board) or " " not in board:
        ok = line_of_three(board) != ("O" if me == "X" else "X")
    else:
        mover = "X" if board.count(" ") % 2 == 1 else "O"
        squares = best_moves(board) if mover == me else [s for s in range(9) if board[s] == " "]
        ok = all(_never_loses(board[:s] + mover + board[s + 1 :], me, seen) for s in squares)
    seen[board] = ok
    return ok


@pytest.mark.parametrize("me", ["X", "O"])
def test_perfect_never_loses_against_any_line_of_play(me: str) -> None:
    assert _never_loses(" " * 9, me, {})


def test_perfect_draws_against_itself_every_time() -> None:
    random.seed(3)
    for _ in range(50):
        board = [" "] * 9
        while " " in board and not winner(board):
            board[perfect_move(board)] = noughts.to_move(board)
        assert winner(board) is None


def test_perfect_takes_the_quicker_win() -> None:
    # X can win at once on square 2; other squares win later or not at all.
    board = "XX OO    "
    assert best_moves(board) == [2]
    # O to move must block X's line on square 2 (the only move that does not lose at once).
    assert best_moves("XX O     ") == [2]


def test_perfect_loses_as_late_as_it_can() -> None:
    # X holds two corners (0, 8), O one (6); O is to move and is lost: blocking the
    # centre lets X fork with square 2 and win two moves later, anything else lets X
    # win at once in the centre. The later loss is the best move.
    board = "X     O X"
    assert best_moves(board) == [4]


def test_perfect_move_draws_once_among_the_best_squares_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[list[int]] = []
    monkeypatch.setattr(random, "choice", lambda seq: calls.append(list(seq)) or seq[-1])
    assert perfect_move(" " * 9) == best_moves(" " * 9)[-1]
    assert calls == [best_moves(" " * 9)]


def test_random_move_draws_once_among_the_empty_squares_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[list[int]] = []
    monkeypatch.setattr(random, "choice", lambda seq: calls.append(list(seq)) or seq[0])
    assert random_move("XO  X O  ") == 2
    assert calls == [[2, 3, 5, 7, 8]]


def test_a_full_board_has_no_best_move() -> None:
    with pytest.raises(ValueError, match="no empty square"):
        best_moves("XOXXOOOXX")


@pytest.mark.parametrize("module", [noughts, pixels], ids=["noughts", "pixels"])
def test_copied_modules_import_only_the_standard_library(module: ModuleType) -> None:
    tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert {name.split(".")[0] for name in imported} <= set(sys.stdlib_module_names) | {"__future__"}
