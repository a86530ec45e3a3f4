"""Experiment ``rewards``: the lesson's question "Change the rewards: do the numbers matter?"

Michie's MENACE adds 3 beads for a win, 1 for a draw and takes 1 away for a loss.
This plays Step 3's training (300 games against Perfect, or against Random) with
other rewards, for many seeds each, and compares how the games went. To compare
fairly, every learner is scored the same way, on Michie's chart: a line that goes
up 3 for each win, up 1 for each draw and down 1 for each loss, whatever rewards
that learner was given.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from menace_course.lesson.engine import Boxes, Player, Result, Settings, play_game
from menace_course.lesson.experiments.progress import Tick

#: Beads added for (win, draw, loss), tried by default.
TRIPLES: tuple[tuple[int, int, int], ...] = (
    (3, 1, -1),  # Michie's
    (1, 1, -1),  # a draw is as good as a win
    (3, 0, -1),  # a draw earns nothing
    (3, 1, -3),  # a loss costs as much as a win earns
    (3, 1, 0),  # no punishment at all
    (0, 0, -1),  # punishment only
)
#: Michie's chart: how far the line moves after each result.
CHART_STEP = {"win": 3, "draw": 1, "loss": -1}


@dataclass(frozen=True)
class RewardRuns:
    """Every run's results, game by game, for one reward triple."""

    reward: tuple[int, int, int]
    runs: tuple[tuple[Result, ...], ...]

    def mean_count(self, result: Result, games: slice) -> float:
        """How many of the games in ``games`` ended in ``result``, on average over the runs."""
        return sum(run[games].count(result) for run in self.runs) / len(self.runs)

    def chart(self) -> list[float]:
        """Michie's line, averaged over the runs: its height after each game."""
        heights = [0.0] * len(self.runs[0])
        for run in self.runs:
            height = 0
            for game, result in enumerate(run):
                height += CHART_STEP[result]
                heights[game] += height / len(self.runs)
        return heights


def label(reward: Sequence[int]) -> str:
    """A triple as the lesson writes rewards: ``+3/+1/-1``."""
    return "/".join(f"{n:+d}" for n in reward)


def run(
    opponent: Player,
    triples: Sequence[tuple[int, int, int]] = TRIPLES,
    seeds: range = range(1, 21),
    games: int = 300,
    tick: Tick | None = None,
) -> list[RewardRuns]:
    """Train a fresh MENACE for ``games`` games against ``opponent``, per triple and seed."""
    found = []
    for win, draw, loss in triples:
        settings = Settings(reward={"win": win, "draw": draw, "loss": loss})
        runs = []
        for seed in seeds:
            random.seed(seed)
            boxes: Boxes = {}
            runs.append(tuple(play_game(boxes, opponent, settings) for _ in range(games)))
            if tick:
                tick()
        found.append(RewardRuns((win, draw, loss), tuple(runs)))
    return found


def report(data: Sequence[RewardRuns], window: int = 50) -> str:
    """A table: the first and the last ``window`` games of each triple, averaged over runs."""
    games, runs = len(data[0].runs[0]), len(data[0].runs)
    parts = (slice(0, window), slice(-window, None))
    heads = "".join(f"{head:>7}" for head in ("won", "drawn", "lost"))
    lines = [
        f"{runs} runs of {games} games for each reward; each number is the mean of the runs.",
        "",
        f"{'beads added':<12}{f'first {window} games':^21}   {f'last {window} games':^21}   Michie's line",
        f"{'win/draw/loss':<12}{heads}   {heads}   after game {games}",
    ]
    for item in data:
        counts = [item.mean_count(r, part) for part in parts for r in ("win", "draw", "loss")]
        cells = "".join(f"{n:7.1f}" for n in counts[:3]) + "   "
        cells += "".join(f"{n:7.1f}" for n in counts[3:])
        lines.append(f"{label(item.reward):<12}{cells}   {item.chart()[-1]:13.1f}")
    lines += ["", "Michie's line goes up 3 for a win and 1 for a draw, down 1 for a loss."]
    if all("win" not in run for item in data for run in item.runs):
        lines.append(
            "No game was won, so the reward for a win never came into play: rewards that\n"
            "differ only in it gave exactly the same games."
        )
    return "\n".join(lines) + "\n"


def draw_chart(data: Sequence[RewardRuns], path: Path, opponent: str) -> Path:
    """Draw every triple's average line on one chart of Michie's kind, to a picture file."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 5))
    styles = ["-", "--", ":", "-."]  # lines that coincide stay visible
    for number, item in enumerate(data):
        line = item.chart()
        axes.plot(
            range(1, len(line) + 1),
            line,
            styles[number % len(styles)],
            linewidth=max(1.0, 3.0 - 0.4 * number),
            label=label(item.reward),
        )
    axes.axhline(0, color="gray", linewidth=0.8)
    axes.set_xlabel("game")
    axes.set_ylabel("Michie's line (win +3, draw +1, loss -1)")
    runs = len(data[0].runs)
    axes.set_title(f"MENACE against {opponent}: mean of {runs} runs for each reward")
    axes.legend(title="beads added")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path
