"""Experiment ``two-learners``: two MENACEs learn by playing each other.

Michie's computer copy of MENACE could let both sides learn at once, and he reported
that "after a few hundred games the two sides were both producing near-expert play".
Here X and O each have their own boxes (O's named from O's side) and learn from
their own results, with Michie's beads and rewards. Two measures of how expert they
became: how many of the last games between them were draws (between two perfect
players every game is), and how each side does against the Perfect player
afterwards, with learning switched off. The same test of a MENACE that never
trained shows where they started.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from menace_course.lesson.engine import Boxes, choose_move, play, play_two_learners, result_for
from menace_course.lesson.experiments.progress import Tick
from menace_course.lesson.noughts import perfect_move

#: (won, drawn, lost) from one side's point of view.
Counts = tuple[int, int, int]


@dataclass(frozen=True)
class LearnersRun:
    """One run: X's result in every training game, and each side's test against Perfect."""

    seed: int
    results: tuple[str, ...]
    x_vs_perfect: Counts
    o_vs_perfect: Counts


@dataclass(frozen=True)
class TwoLearners:
    """All the runs, and the same test for MENACEs that never trained."""

    runs: tuple[LearnersRun, ...]
    untrained_x: Counts
    untrained_o: Counts
    window: int
    tests: int


def against_perfect(boxes: Boxes, mark: str, games: int) -> Counts:
    """Play ``games`` games against Perfect with ``boxes`` (learning nothing); count them."""

    def menace(board: list[str]) -> int:
        return choose_move(boxes, board)

    x, o = (menace, perfect_move) if mark == "X" else (perfect_move, menace)
    results = [result_for(play(x, o), mark) for _ in range(games)]
    return results.count("win"), results.count("draw"), results.count("loss")


def train(seed: int, games: int, tests: int, tick: Tick | None = None) -> LearnersRun:
    """Two fresh MENACEs play ``games`` games against each other, then face Perfect."""
    random.seed(seed)
    x_boxes: Boxes = {}
    o_boxes: Boxes = {}
    results = []
    for _ in range(games):
        results.append(play_two_learners(x_boxes, o_boxes))
        if tick:
            tick()
    return LearnersRun(
        seed,
        tuple(results),
        against_perfect(x_boxes, "X", tests),
        against_perfect(o_boxes, "O", tests),
    )


def run(
    seeds: range = range(1, 2),
    games: int = 2000,
    window: int = 100,
    tests: int = 100,
    tick: Tick | None = None,
) -> TwoLearners:
    """Train one pair of learners for each seed (``tick`` after each game); test untrained ones."""
    runs = [train(seed, games, tests, tick) for seed in seeds]
    random.seed(seeds.start)
    untrained_x, untrained_o = against_perfect({}, "X", tests), against_perfect({}, "O", tests)
    return TwoLearners(tuple(runs), untrained_x, untrained_o, window, tests)


def _counts(counts: Counts) -> str:
    return "".join(f"{n:6d}" for n in counts)


def report(data: TwoLearners) -> str:
    """A table: draws among the last games, and each side against Perfect."""
    games = len(data.runs[0].results)
    heads = "".join(f"{head:>6}" for head in ("won", "drawn", "lost"))
    lines = [
        f"Two MENACEs learned against each other, {games:,} games a run.",
        f"Then each played Perfect {data.tests} times, learning nothing.",
        "",
        f"{'':<10}{'draws in the':>14}   {'X against Perfect':^18}   {'O against Perfect':^18}",
        f"{'seed':<10}{f'last {data.window} games':>14}   {heads}   {heads}",
    ]
    for item in data.runs:
        draws = item.results[-data.window :].count("draw")
        lines.append(
            f"{item.seed:<10}{draws:>14}   {_counts(item.x_vs_perfect)}   {_counts(item.o_vs_perfect)}"
        )
    lines.append(f"{'untrained':<10}{'':>14}   {_counts(data.untrained_x)}   {_counts(data.untrained_o)}")
    return "\n".join(line.rstrip() for line in lines) + "\n"
