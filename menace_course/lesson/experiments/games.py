"""Experiment ``games``: the lesson page's widget, game by game, in the terminal.

The widget on ``/lesson`` plays its games on the server with this module's
:func:`play_one`, so a seed and the same settings give the same games here and on the
page: ``menace experiment games --seed 7 --opponent random --reward 1/1/-1`` prints,
move by move, the games the widget plays after Start with seed 7, O: Random and those
rewards. The settings are the widget's:

* the opponent: ``perfect``, ``random``, or ``menace``, a second MENACE with boxes of its
  own (named from O's side) that learns from its own results at the same time;
* the rewards for a win, a draw and a loss (Michie's 3/1/-1);
* the starting beads before MENACE's 1st, 2nd, 3rd and 4th moves (Michie's 4/3/2/1);
* symmetry on (8 versions of a board share a box) or off (every board its own box).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from menace_course.lesson.engine import (
    Boxes,
    GameRecord,
    Player,
    Result,
    Settings,
    play_game,
    play_two_learners,
)
from menace_course.lesson.noughts import perfect_move, random_move

#: The built-in players O can be; ``"menace"`` (a second learner) is played separately.
PLAYERS: Mapping[str, Player] = MappingProxyType({"perfect": perfect_move, "random": random_move})
#: Every opponent the widget and this experiment know.
OPPONENTS = ("perfect", "random", "menace")


def make_settings(
    reward: Sequence[int] = (3, 1, -1), start: Sequence[int] = (4, 3, 2, 1), symmetry: bool = True
) -> Settings:
    """Engine settings from the widget's numbers: rewards (win, draw, loss) and starting beads.

    ``start[i]`` beads of each colour go in a new box for a player's ``i+1``-th move, for X
    (9, 7, 5, 3 empty squares) and for a learning O (8, 6, 4, 2).
    """
    win, draw, loss = reward
    return Settings(
        start=MappingProxyType(dict(zip((9, 7, 5, 3), start, strict=True))),
        start_o=MappingProxyType(dict(zip((8, 6, 4, 2), start, strict=True))),
        reward=MappingProxyType({"win": win, "draw": draw, "loss": loss}),
        symmetry=symmetry,
    )


@dataclass
class Table:
    """MENACE (X), the boxes of a learning O, and the settings both play by."""

    settings: Settings
    x_boxes: Boxes = field(default_factory=dict)
    o_boxes: Boxes = field(default_factory=dict)


def play_one(table: Table, opponent: str, record: GameRecord | None = None) -> Result:
    """One game of MENACE (X) against ``opponent``; both learners learn. Returns X's result."""
    if opponent == "menace":
        return play_two_learners(table.x_boxes, table.o_boxes, table.settings, record)
    return play_game(table.x_boxes, PLAYERS[opponent], table.settings, record=record)


@dataclass(frozen=True)
class Game:
    """One game: X's result and every square played, X first."""

    result: Result
    moves: tuple[int, ...]


def run(seed: int, settings: Settings, opponent: str, games: int) -> list[Game]:
    """``games`` games from a fresh start with ``seed``, as the widget plays them."""
    random.seed(seed)
    table = Table(settings)
    played = []
    for _ in range(games):
        record = GameRecord()
        result = play_one(table, opponent, record)
        played.append(Game(result, tuple(record.moves)))
    return played


def report(played: Sequence[Game]) -> str:
    """One line a game (its squares, 0-8, X first), then the tally."""
    lines = [f"{'game':>5}  {'result':<6}  squares played (X first)"]
    for number, game in enumerate(played, start=1):
        lines.append(f"{number:>5}  {game.result:<6}  {' '.join(str(s) for s in game.moves)}".rstrip())
    results = [game.result for game in played]
    lines += [
        "",
        f"{len(results)} games: {results.count('win')} won, {results.count('draw')} drawn, "
        f"{results.count('loss')} lost.",
    ]
    return "\n".join(lines) + "\n"
