"""Experiment ``replica``: the second account's MENACE program, run as it was printed.

That program is simpler than the lesson's: no symmetry (a box for every raw board),
4 beads for every empty square in every box, an empty box answered by a fair random
choice, and ``greedy`` play that takes the square with the most beads. MENACE (X)
plays the Random player. Each round trains for 2,000 games, then plays 2,000 greedy
games and counts them, five rounds in all, after ``random.seed(0)``. Learning goes
on during the greedy games too, as it did in that program.

Its page reports 1687 won, 189 drawn, 124 lost after the first round and 1758, 171,
71 after the fifth. To get the same numbers every random draw must happen in the
same order: the program imports ``itertools`` only after defining its game, but
before playing one, so that changes nothing; its board uses 0 for empty, 1 for X
and 2 for O.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from menace_course.lesson.experiments.progress import Tick

Board = list[int]
Key = tuple[int, ...]
RawBoxes = defaultdict[Key, dict[int, int]]
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def outcome(board: Board) -> int:
    """The winner (1 or 2), 0 for a draw, or -1 while the game goes on."""
    for a, b, c in LINES:
        if board[a] == board[b] == board[c] != 0:
            return board[a]
    return 0 if all(board) else -1


def menace_move(boxes: RawBoxes, board: Board, greedy: bool) -> int:
    """A square from the box of this exact board."""
    box = boxes[tuple(board)]
    squares = [a for a in box if board[a] == 0]
    weights = [box[a] for a in squares]
    if sum(weights) == 0:
        return random.choice(squares)
    if greedy:
        return max(squares, key=lambda a: box[a])  # the first square with the most beads
    return random.choices(squares, weights=weights)[0]


def play(boxes: RawBoxes, greedy: bool = False) -> int:
    """One game, MENACE (1, X) against Random (2, O); MENACE learns; returns the outcome."""
    board, path = [0] * 9, []
    turn = 1
    while True:
        if turn == 1:
            square = menace_move(boxes, board, greedy)
            path.append((tuple(board), square))
        else:
            square = random.choice([a for a in range(9) if board[a] == 0])
        board[square] = turn
        result = outcome(board)
        if result != -1:
            change = 3 if result == 1 else 1 if result == 0 else -1
            for key, a in path:
                boxes[key][a] = max(0, boxes[key][a] + change)
            return result
        turn = 3 - turn


@dataclass(frozen=True)
class Round:
    """The greedy games after ``trained`` training games: how many were won, drawn, lost."""

    trained: int
    won: int
    drawn: int
    lost: int


def run(seed: int = 0, rounds: int = 5, games: int = 2000, tick: Tick | None = None) -> list[Round]:
    """Train ``games`` games, then count ``games`` greedy games; ``rounds`` times."""
    random.seed(seed)
    boxes: RawBoxes = defaultdict(lambda: {i: 4 for i in range(9)})
    found = []
    for number in range(1, rounds + 1):
        for _ in range(games):
            play(boxes)
        results = [play(boxes, greedy=True) for _ in range(games)]
        found.append(Round(number * games, results.count(1), results.count(0), results.count(2)))
        if tick:
            tick()
    return found


def report(rounds: list[Round]) -> str:
    """One line per round."""
    lines = [
        f"After {r.trained:,} training games: {r.won} won, {r.drawn} drawn, {r.lost} lost"
        f" of {r.won + r.drawn + r.lost:,} greedy games"
        for r in rounds
    ]
    return "\n".join(lines) + "\n"
