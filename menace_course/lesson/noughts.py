"""Noughts and crosses: the board, its symmetries, and two players (Perfect and Random).

A board is 9 squares, numbered like this, each holding ``'X'``, ``'O'`` or ``' '``::

    0 | 1 | 2
    --+---+--
    3 | 4 | 5
    --+---+--
    6 | 7 | 8

Any sequence of 9 one-letter strings will do: a list (``[' '] * 9``) or a string
(``' ' * 9``). X always moves first, so whose turn it is can be read off the board:
an even number of marks means X is to move.

This module is self-contained on purpose (standard library only, no imports from
the package): ``menace start step3`` copies it, as ``noughts.py``, next to a step
program, so that the program runs exactly as it does on the lesson's page.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = [
    "FLIP",
    "LINES",
    "TURN",
    "WAYS",
    "best_moves",
    "name",
    "perfect_move",
    "random_move",
    "to_move",
    "winner",
]

#: The 8 lines of three: rows, columns, then the two diagonals.
LINES: list[tuple[int, int, int]] = [
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
]


def winner(board: Sequence[str]) -> str | None:
    """The mark (``'X'`` or ``'O'``) that has a line of three, or None if nobody has one."""
    for a, b, c in LINES:
        if board[a] != " " and board[a] == board[b] == board[c]:
            return board[a]
    return None


# The 8 ways to turn or flip a board. A version's square i holds the board's square
# way[i]; the first way leaves the board as it is. Each way is made from the one
# before by a quarter turn, and each is also used flipped.
TURN: list[int] = [6, 3, 0, 7, 4, 1, 8, 5, 2]  # a quarter turn clockwise
FLIP: list[int] = [2, 1, 0, 5, 4, 3, 8, 7, 6]  # left to right


def _make_ways() -> list[list[int]]:
    ways: list[list[int]] = []
    way = list(range(9))
    for _ in range(4):
        ways.append(way)
        ways.append([way[i] for i in FLIP])
        way = [way[i] for i in TURN]
    return ways


#: The 8 symmetries of the board, in the lesson's order.
WAYS: list[list[int]] = _make_ways()


def name(board: Sequence[str]) -> tuple[str, list[int]]:
    """The smallest of the board's 8 versions, as a string, and the way that makes it.

    All 8 versions of a position get the same name. Strings compare letter by letter,
    and ``' ' < 'O' < 'X'``, so the name puts empty squares as early as it can. A move
    on the name's square ``s`` is the move on the board's square ``way[s]``.

    >>> name(['X', ' ', ' ', ' ', 'O', ' ', ' ', ' ', ' '])[0]
    '    O   X'
    """
    best, best_way = "", WAYS[0]
    for way in WAYS:
        version = "".join(board[i] for i in way)
        if not best or version < best:
            best, best_way = version, way
    return best, best_way


def to_move(board: Sequence[str]) -> str:
    """Whose turn it is: ``'X'`` after an even number of marks, else ``'O'``."""
    marks = sum(1 for square in board if square != " ")
    return "X" if marks % 2 == 0 else "O"


def random_move(board: Sequence[str]) -> int:
    """The Random player: any empty square, each as likely (``random.choice``, in square order)."""
    return random.choice([i for i in range(9) if board[i] == " "])


# Minimax, memoized by the board as a string. A finished game scores, for the
# player who made the last move, the number of empty squares left plus one for a
# win (so a quicker win scores more, and a slower loss less), and 0 for a draw.
_VALUES: dict[str, int] = {}
_BEST: dict[str, list[int]] = {}


def _move_scores(board: str) -> dict[int, int]:
    """The score of each empty square for the player to move, from that player's side."""
    me = to_move(board)
    scores = {}
    for i in range(9):
        if board[i] == " ":
            after = board[:i] + me + board[i + 1 :]
            empty = after.count(" ")
            if winner(after) == me:
                scores[i] = empty + 1
            elif empty == 0:
                scores[i] = 0
            else:
                scores[i] = -_value(after)
    return scores


def _value(board: str) -> int:
    """The score of a position for the player to move, both sides playing perfectly."""
    if board not in _VALUES:
        _VALUES[board] = max(_move_scores(board).values())
    return _VALUES[board]


def best_moves(board: Sequence[str]) -> list[int]:
    """Every square where a perfect player may move, in square order.

    Best means: win if you can, as soon as you can; otherwise draw; and if every move
    loses, lose as late as possible. Works for whichever mark is to move.

    Raises:
        ValueError: the board has no empty square.
    """
    key = "".join(board)
    if " " not in key:
        raise ValueError(f"no empty square on the board {key!r}")
    if key not in _BEST:
        scores = _move_scores(key)
        top = max(scores.values())
        _BEST[key] = [i for i in scores if scores[i] == top]
    return list(_BEST[key])


def perfect_move(board: Sequence[str]) -> int:
    """The Perfect player: one of the best squares (``random.choice``, in square order).

    It never loses, whether it plays X or O: the mark it plays is read off the board.
    """
    return random.choice(best_moves(board))
