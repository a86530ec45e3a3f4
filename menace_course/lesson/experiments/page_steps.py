"""The lesson's Steps 1-4, computed with the package's own engine.

``reference/steps/stepN.py`` are the page's programs as a student runs them. These
functions compute the same things with :mod:`menace_course.lesson.engine`, and return the
printed lines and the picture as data, so that ``menace step N`` works even where
the step programs are not installed, and so that the tests can show the engine
makes exactly the page's random draws.

Like the page's programs, they seed Python's shared ``random`` generator.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

from menace_course.lesson.engine import Boxes, Player, Result, draw_bead, new_box, play_game
from menace_course.lesson.noughts import name, perfect_move, random_move, winner

#: The colours of the page's picture.
COLOURS: Mapping[Hashable, str] = {"win": "green", "draw": "lightgray", "loss": "firebrick"}


@dataclass(frozen=True)
class StepOutput:
    """What a step prints, line by line, and its picture (rows of results), if it has one."""

    lines: tuple[str, ...]
    picture: tuple[tuple[str, ...], ...] | None = None


def x_boxes_by_move(symmetry: bool = True) -> tuple[dict[int, set[str]], int]:
    """The names of the positions where X must choose, by X's move; and the positions searched.

    The search stops at a position whose name it has met before: turned or flipped,
    it has the same futures (``symmetry=False``: a board is only itself, as in the
    lesson's 2,201). X's 5th move (one square left) needs no box.
    """
    boxes: dict[int, set[str]] = {1: set(), 3: set(), 5: set(), 7: set()}
    seen: set[str] = set()

    def visit(board: list[str]) -> None:
        if winner(board) or " " not in board:
            return
        key = name(board)[0] if symmetry else "".join(board)
        if key in seen:
            return
        seen.add(key)
        marks = 9 - board.count(" ")
        me = "X" if marks % 2 == 0 else "O"
        if me == "X" and marks < 8:
            boxes[marks + 1].add(key)
        for square in range(9):
            if board[square] == " ":
                board[square] = me
                visit(board)
                board[square] = " "

    visit([" "] * 9)
    return boxes, len(seen)


def step1() -> StepOutput:
    """How many boxes MENACE needs, by move."""
    boxes, searched = x_boxes_by_move()
    lines = [f"Boxes for move {move}: {len(names)}" for move, names in boxes.items()]
    lines.append(f"In all: {sum(len(names) for names in boxes.values())}")
    lines.append(f"Positions searched: {searched}")
    return StepOutput(tuple(lines))


def step2() -> StepOutput:
    """The first box, a named position and its box, and ten beads drawn with seed 1."""
    board = ["X", " ", " ", " ", "O", " ", " ", " ", " "]
    position = name(board)[0]
    random.seed(1)
    first = new_box(" " * 9)
    beads = [draw_bead(first) for _ in range(10)]
    return StepOutput(
        (
            f"The first box: {new_box(' ' * 9)}",
            f"X in a corner, O in the center is named {position!r}",
            f"Its box: {new_box(position)}",
            f"Ten beads from the first box: {beads}",
        )
    )


def tally(results: Sequence[Result], size: int) -> list[str]:
    """The page's lines ``Games 1–50: 0 won, 15 drawn, 35 lost``, ``size`` games a line."""
    lines = []
    for start in range(0, len(results), size):
        games = results[start : start + size]
        lines.append(
            f"Games {start + 1}–{start + size}: {games.count('win')} won, "
            f"{games.count('draw')} drawn, {games.count('loss')} lost"
        )
    return lines


def _train(opponent: Player, games: int) -> tuple[list[Result], Boxes]:
    random.seed(1)
    boxes: Boxes = {}
    return [play_game(boxes, opponent) for _ in range(games)], boxes


def _rows(results: list[Result], width: int) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(results[row : row + width]) for row in range(0, len(results), width))


def step3() -> StepOutput:
    """300 games against Perfect, learning as it goes."""
    results, boxes = _train(perfect_move, 300)
    lines = [*tally(results, 50), f"Boxes opened: {len(boxes)}", f"The first box: {boxes[' ' * 9]}"]
    return StepOutput(tuple(lines), _rows(results, 30))


def step4() -> StepOutput:
    """1,000 games against Random."""
    results, boxes = _train(random_move, 1000)
    lines = [*tally(results, 200), f"Boxes opened: {len(boxes)} of 304"]
    return StepOutput(tuple(lines), _rows(results, 50))


#: The steps by number.
STEPS: dict[int, Callable[[], StepOutput]] = {1: step1, 2: step2, 3: step3, 4: step4}
