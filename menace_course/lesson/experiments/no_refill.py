"""Experiment ``no-refill``: why the lesson's MENACE refills an empty box.

Against the Perfect player every loss takes a bead from the first box, which starts
with only 12. Without a rule for an empty box, MENACE resigns there in every game
that follows: it has run out for good. This runs Step 3 (300 games against Perfect)
once for each seed with the refill rule switched off, and counts the runs whose
first box ended empty. The lesson reports 121 of 200 runs, for seeds 1 to 200.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from menace_course.lesson.engine import Boxes, Settings, play_game
from menace_course.lesson.experiments.progress import Tick
from menace_course.lesson.noughts import perfect_move

FIRST = " " * 9
NO_REFILL = Settings(refill=False)


@dataclass(frozen=True)
class NoRefill:
    """How many runs ran out, and after which game each of them did."""

    seeds: range
    games: int
    #: For each run whose first box ran out: (seed, the game after which it was empty).
    ran_out: tuple[tuple[int, int], ...]


def empty_after(seed: int, games: int) -> int | None:
    """Play one run without refills; the game after which the first box was empty, or None."""
    random.seed(seed)
    boxes: Boxes = {}
    for game in range(1, games + 1):
        play_game(boxes, perfect_move, NO_REFILL)
        if sum(boxes[FIRST].values()) == 0:
            return game  # with no refill, it stays empty: every later game is resigned
    return None


def run(seeds: range = range(1, 201), games: int = 300, tick: Tick | None = None) -> NoRefill:
    """Run Step 3 without refills once for each seed."""
    ran_out = []
    for seed in seeds:
        game = empty_after(seed, games)
        if game is not None:
            ran_out.append((seed, game))
        if tick:
            tick()
    return NoRefill(seeds, games, tuple(ran_out))


def report(data: NoRefill) -> str:
    """The experiment's result in words."""
    runs, out = len(data.seeds), len(data.ran_out)
    seeds = f"seeds {data.seeds.start} to {data.seeds.stop - 1}"
    text = (
        f"Step 3 without the refill rule ({data.games} games against Perfect, {seeds}):\n"
        f"the first box ran out for good in {out} of {runs} runs.\n"
    )
    if out:
        games = sorted(game for _, game in data.ran_out)
        text += (
            f"It ran out after game {games[0]} at the earliest, {games[-1]} at the latest\n"
            f"(median {games[len(games) // 2]}); from then on MENACE resigned every game.\n"
        )
    return text
