"""Play against Step 3's MENACE after its 300 games: the board under the Step 3 program.

The Step 3 program trains MENACE with ``random.seed(1)`` for 300 games against Perfect,
then defines ``choose_move``: a move drawn from the trained boxes, learning nothing. This
module trains the same MENACE once (with the package's engine, which makes exactly the
program's random draws), keeps its boxes, and answers each move of a game against a
visitor with :func:`menace_course.lesson.engine.choose_move`. Since nothing is learned,
every game starts from the same boxes; the beads of game number ``n`` are drawn with
seed ``n``, so the same game number and the same moves always give the same game.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Any

from menace_course.lesson.engine import Boxes, choose_move, play, play_game, result_for
from menace_course.lesson.noughts import perfect_move
from menace_course.service.languages import gettext as _
from menace_course.service.lesson.widget import RANDOM_LOCK

__all__ = ["MAX_GAME_NUMBER", "TrainedGameError", "play_trained"]

#: Game numbers (the seed of each game's draws) are whole numbers below this.
MAX_GAME_NUMBER = 2**31


class TrainedGameError(ValueError):
    """A game that cannot be played: the message says why."""


@functools.cache
def trained_boxes() -> Boxes:
    """Step 3's boxes after its 300 games (seed 1, against Perfect), made once."""
    with RANDOM_LOCK:
        saved = random.getstate()
        try:
            random.seed(1)
            boxes: Boxes = {}
            for _game in range(300):
                play_game(boxes, perfect_move)
        finally:
            random.setstate(saved)
    return boxes


class _Waiting(Exception):
    def __init__(self, board: list[str]) -> None:
        super().__init__("O to move")
        self.board = list(board)


def play_trained(game: int, moves: Sequence[int]) -> dict[str, Any]:
    """Game number ``game`` against the trained MENACE (X), with O's ``moves`` so far.

    Returns ``{"moves": [...], "board": "...", "result": None | "win" | "draw" | "loss"}``
    (the result is MENACE's; None means it is O's turn).

    Raises:
        TrainedGameError: a move is not a free square, or comes after the game ended.
    """
    if type(game) is not int or not 0 <= game < MAX_GAME_NUMBER:
        raise TrainedGameError(
            _("%(what)s must be a whole number from %(low)s to %(high)s")
            % {"what": "game", "low": 0, "high": MAX_GAME_NUMBER - 1}
        )
    if (
        not isinstance(moves, list)
        or len(moves) > 4
        or not all(type(m) is int and 0 <= m <= 8 for m in moves)
    ):
        raise TrainedGameError(
            _("%(key)s must be a list of at most %(n)s squares, 0 to 8") % {"key": "moves", "n": 4}
        )
    boxes = trained_boxes()
    queue = list(moves)
    played: list[int] = []

    def menace(board: list[str]) -> int:
        square = choose_move(boxes, board)
        played.append(square)
        return square

    def visitor(board: list[str]) -> int:
        if not queue:
            raise _Waiting(board)
        square = int(queue.pop(0))
        if board[square] != " ":
            raise TrainedGameError(_("square %(square)s is taken") % {"square": square})
        played.append(square)
        return square

    with RANDOM_LOCK:
        saved = random.getstate()
        random.seed(game)
        try:
            outcome: str | None = play(menace, visitor)
            board = None
        except _Waiting as waiting:
            outcome, board = None, waiting.board
        finally:
            random.setstate(saved)
    if outcome is not None and queue:
        raise TrainedGameError(_("the game was over before all of O's moves were played"))
    if board is None:
        board = [" "] * 9
        for number, square in enumerate(played):
            board[square] = "XO"[number % 2]
    return {
        "moves": played,
        "board": "".join(board),
        "result": None if outcome is None else result_for(outcome, "X"),
    }
