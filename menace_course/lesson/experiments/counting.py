"""Experiment ``count``: the lesson's numbers of boards and boxes, counted.

The lesson says three things a program can check:

* a search of every game from the empty board, that never stops early, visits
  549,946 boards (every board of every game, the empty board and the finished ones too);
* stopping at a position whose name it has met before, Step 1 searches only 627;
* MENACE needs 304 boxes thanks to the board's 8 symmetries; with every board a
  position of its own it would need 2,201.
"""

from __future__ import annotations

from dataclasses import dataclass

from menace_course.lesson.experiments.page_steps import x_boxes_by_move
from menace_course.lesson.noughts import winner

#: MENACE's moves that need a box (its 9th has one square left).
MOVES = (1, 3, 5, 7)


@dataclass(frozen=True)
class Counts:
    """The boards a whole search visits, and the boxes MENACE needs with and without symmetry."""

    boards_in_every_game: int
    searched_by_name: int
    boxes_by_name: dict[int, int]
    boxes_by_board: dict[int, int]


def boards_in_every_game() -> int:
    """Every board a search of all games meets, counted each time it is met (no stopping)."""
    count = 0

    def visit(board: list[str]) -> None:
        nonlocal count
        count += 1
        if winner(board) or " " not in board:
            return
        me = "X" if board.count(" ") % 2 == 1 else "O"
        for square in range(9):
            if board[square] == " ":
                board[square] = me
                visit(board)
                board[square] = " "

    visit([" "] * 9)
    return count


def boxes_needed(symmetry: bool) -> tuple[dict[int, int], int]:
    """How many boxes X needs before each of its moves, and how many positions were searched.

    With ``symmetry`` a position is its name (Step 1's search); without it, the board itself
    (the same search as Step 1's: :func:`~.page_steps.x_boxes_by_move`).
    """
    boxes, searched = x_boxes_by_move(symmetry)
    return {move: len(names) for move, names in boxes.items()}, searched


def run() -> Counts:
    """Count everything (a second or two: the whole search is the slow part)."""
    by_name, searched = boxes_needed(symmetry=True)
    by_board, _ = boxes_needed(symmetry=False)
    return Counts(boards_in_every_game(), searched, by_name, by_board)


def report(data: Counts) -> str:
    """The counts as a small table."""
    lines = [
        f"{'Boxes MENACE needs':<22}{'with symmetry':>15}{'without':>10}",
    ]
    for move in MOVES:
        lines.append(
            f"{f'before its move {move}':<22}{data.boxes_by_name[move]:>15,}{data.boxes_by_board[move]:>10,}"
        )
    lines.append(
        f"{'in all':<22}{sum(data.boxes_by_name.values()):>15,}{sum(data.boxes_by_board.values()):>10,}"
    )
    lines += [
        "",
        f"Boards a search of every game visits, never stopping early: {data.boards_in_every_game:,}",
        f"Positions Step 1 searches, stopping at a name met before:    {data.searched_by_name:,}",
    ]
    return "\n".join(lines) + "\n"
