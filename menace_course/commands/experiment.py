"""``menace experiment NAME``: the experiments as command-line commands.

Each experiment is a subcommand with its own options and ``--help``. The results go
to standard output; a progress bar, hints and file names go to standard error.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import click

from menace_course import extras
from menace_course.errors import UsageError
from menace_course.lesson.experiments.progress import progress_bar


class ExperimentGroup(click.Group):
    """A group that answers an unknown experiment's name with the close ones."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Find the experiment named first in ``args``, or say which names exist."""
        if args and self.get_command(ctx, args[0]) is None and not args[0].startswith("-"):
            known = sorted(self.commands)
            close = difflib.get_close_matches(args[0], known, n=2, cutoff=0.5)
            if close:
                hint = f"did you mean {' or '.join(close)}?"
            else:
                hint = f"the experiments are: {', '.join(known)}"
            raise UsageError(f"no experiment named {args[0]!r}; {hint}")
        return super().resolve_command(ctx, args)


@click.group(cls=ExperimentGroup, invoke_without_command=True, subcommand_metavar="NAME [OPTIONS]")
@click.pass_context
def experiment(ctx: click.Context) -> int:
    """Run an experiment from the lesson's questions, and print what it found.

    \b
    Try:  menace experiment count
          menace experiment games --seed 7 --opponent random --reward 1/1/-1
          menace experiment no-refill
          menace experiment rewards --picture rewards.png
          menace experiment two-learners --games 3000
    Each one has its own options: menace experiment NAME --help
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
    return 0


@experiment.command("no-refill", short_help="Step 3 with no refill of an empty box.")
@click.option(
    "--runs",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="How many runs, each with its own seed.",
)
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=300,
    show_default=True,
    help="Games against Perfect in each run.",
)
@click.option(
    "--seed",
    type=int,
    default=1,
    show_default=True,
    help="The first run's seed; the next runs take the next seeds.",
)
def no_refill(runs: int, games: int, seed: int) -> int:
    """Step 3 without the refill rule: how often does the first box run out for good?"""
    from menace_course.lesson.experiments import no_refill as experiment_module

    with progress_bar(runs, "runs") as tick:
        data = experiment_module.run(range(seed, seed + runs), games, tick)
    click.echo(experiment_module.report(data), nl=False)
    return 0


@experiment.command(short_help="The second account's program, as printed.")
@click.option("--seed", type=int, default=0, show_default=True, help="The random seed.")
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="Training games in a round, and greedy games counted after it.",
)
@click.option("--rounds", type=click.IntRange(min=1), default=5, show_default=True, help="How many rounds.")
def replica(seed: int, games: int, rounds: int) -> int:
    """The second account's program: no symmetry, 4 beads a square, against Random."""
    from menace_course.lesson.experiments import replica as experiment_module

    with progress_bar(rounds, "rounds") as tick:
        data = experiment_module.run(seed, rounds, games, tick)
    click.echo(experiment_module.report(data), nl=False)
    return 0


def _triple(text: str) -> tuple[int, int, int]:
    numbers = re.fullmatch(r"\s*([+-]?\d+)\s*[,/]\s*([+-]?\d+)\s*[,/]\s*([+-]?\d+)\s*", text)
    if numbers is None:
        raise UsageError(f"--reward {text!r}: give three whole numbers, win/draw/loss, like 3/1/-1")
    win, draw, loss = (int(n) for n in numbers.groups())
    return win, draw, loss


@experiment.command(short_help="Do the rewards +3/+1/-1 matter?")
@click.option(
    "--opponent",
    type=click.Choice(["perfect", "random"]),
    default="perfect",
    show_default=True,
    help="Whom MENACE learns against.",
)
@click.option(
    "--runs",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Runs (seeds) for each reward.",
)
@click.option(
    "--games",
    type=click.IntRange(min=50),
    default=300,
    show_default=True,
    help="Games in each run (the table compares the first 50 with the last 50).",
)
@click.option("--seed", type=int, default=1, show_default=True, help="The first run's seed.")
@click.option(
    "--reward",
    "rewards",
    multiple=True,
    metavar="W/D/L",
    help="Beads added for a win, a draw and a loss, e.g. 3/1/-1 (repeat to "
    "compare several; default: six of them, Michie's first).",
)
@click.option(
    "--picture",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Draw Michie's chart for each reward to this .png, .svg or .pdf file.",
)
def rewards(
    opponent: str, runs: int, games: int, seed: int, rewards: tuple[str, ...], picture: Path | None
) -> int:
    """Change the rewards: do Michie's +3 (win), +1 (draw), -1 (loss) matter?"""
    from menace_course.lesson.experiments import rewards as experiment_module
    from menace_course.lesson.noughts import perfect_move, random_move

    if picture is not None and picture.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise UsageError(f"--picture {picture}: the name must end in .png, .svg or .pdf")
    if picture is not None:  # before the runs, not after them
        extras.require("plots", "menace experiment rewards --picture")
    triples = tuple(_triple(text) for text in rewards) or experiment_module.TRIPLES
    player = perfect_move if opponent == "perfect" else random_move
    with progress_bar(runs * len(triples), "runs") as tick:
        data = experiment_module.run(player, triples, range(seed, seed + runs), games, tick)
    click.echo(experiment_module.report(data), nl=False)
    if picture is not None:
        experiment_module.draw_chart(data, picture, opponent.capitalize())
        click.echo(f"Chart written to {picture}", err=True)
    else:
        click.echo("(add --picture rewards.png to draw Michie's chart)", err=True)
    return 0


@experiment.command("two-learners", short_help="Both sides learn: do both become expert?")
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="Games the two learners play against each other.",
)
@click.option(
    "--runs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="How many runs, each with its own seed.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="The first run's seed.")
@click.option(
    "--last",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="How many of the last games to count draws in.",
)
@click.option(
    "--tests",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Games each side then plays against Perfect.",
)
def two_learners(games: int, runs: int, seed: int, last: int, tests: int) -> int:
    """Both sides learn, as in Michie's computer version: do both become near-expert?"""
    from menace_course.lesson.experiments import two_learners as experiment_module

    with progress_bar(runs * games, "games") as tick:
        data = experiment_module.run(range(seed, seed + runs), games, min(last, games), tests, tick)
    click.echo(experiment_module.report(data), nl=False)
    return 0


@experiment.command("count", short_help="The boards and boxes the lesson counts.")
def count() -> int:
    """Count the lesson's numbers: 549,946 boards in every game; 304 boxes, or 2,201 without symmetry."""
    from menace_course.lesson.experiments import counting

    click.echo(counting.report(counting.run()), nl=False)
    return 0


def _numbers(option: str, text: str, size: int, example: str) -> tuple[int, ...]:
    parts = re.split(r"\s*[,/]\s*", text.strip())
    if len(parts) != size or not all(re.fullmatch(r"[+-]?\d+", p) for p in parts):
        raise UsageError(f"{option} {text!r}: give {size} whole numbers, like {example}")
    return tuple(int(p) for p in parts)


@experiment.command("games", short_help="The page's widget, game by game.")
@click.option(
    "--seed",
    type=click.IntRange(min=0, max=2**31 - 1),
    default=1,
    show_default=True,
    help="The seed (the widget's Seed).",
)
@click.option(
    "--opponent",
    type=click.Choice(["perfect", "random", "menace"]),
    default="perfect",
    show_default=True,
    help="Who plays O: menace is a second MENACE that learns too.",
)
@click.option(
    "--games", type=click.IntRange(min=1, max=5000), default=10, show_default=True, help="How many games."
)
@click.option(
    "--reward",
    default="3/1/-1",
    show_default=True,
    metavar="W/D/L",
    help="Beads added for a win, a draw, a loss.",
)
@click.option(
    "--start",
    default="4/3/2/1",
    show_default=True,
    metavar="A/B/C/D",
    help="Beads of each colour in a new box, before a player's 1st, 2nd, 3rd and 4th moves.",
)
@click.option(
    "--symmetry/--no-symmetry",
    default=True,
    show_default=True,
    help="Do the 8 versions of a board share a box?",
)
def games(seed: int, opponent: str, games: int, reward: str, start: str, symmetry: bool) -> int:
    """Play the widget's games in the terminal: with the same seed and settings, the same games."""
    from menace_course.lesson.experiments import games as experiment_module

    rewards = _numbers("--reward", reward, 3, "3/1/-1")
    beads = _numbers("--start", start, 4, "4/3/2/1")
    if not all(-10 <= n <= 10 for n in rewards):
        raise UsageError(f"--reward {reward!r}: each number must be from -10 to 10")
    if not all(1 <= n <= 99 for n in beads):
        raise UsageError(f"--start {start!r}: each number must be from 1 to 99")
    settings = experiment_module.make_settings(rewards, beads, symmetry)
    click.echo(experiment_module.report(experiment_module.run(seed, settings, opponent, games)), nl=False)
    return 0
