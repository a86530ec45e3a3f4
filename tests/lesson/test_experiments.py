"""The experiments: the page's numbers, and what each one reports."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from lesson_support import Ran

from menace_course.lesson.engine import Boxes, play_game
from menace_course.lesson.experiments import no_refill, replica, rewards, two_learners
from menace_course.lesson.noughts import perfect_move


@pytest.mark.slow
def test_no_refill_the_first_box_runs_out_in_121_of_200_runs() -> None:
    data = no_refill.run(range(1, 201), 300)
    assert len(data.ran_out) == 121
    assert "ran out for good in 121 of 200 runs" in no_refill.report(data)


def test_no_refill_a_box_that_ran_out_stays_empty() -> None:
    seed, game = no_refill.run(range(1, 11), 300).ran_out[0]
    random.seed(seed)
    boxes: Boxes = {}
    results = [play_game(boxes, perfect_move, no_refill.NO_REFILL) for _ in range(game + 20)]
    assert results[game:] == ["loss"] * 20
    assert sum(boxes[" " * 9].values()) == 0


@pytest.mark.slow
def test_replica_gives_the_second_accounts_first_and_fifth_rounds() -> None:
    rounds = replica.run(seed=0, rounds=5, games=2000)
    assert (rounds[0].won, rounds[0].drawn, rounds[0].lost) == (1687, 189, 124)
    assert (rounds[4].won, rounds[4].drawn, rounds[4].lost) == (1758, 171, 71)
    assert [r.trained for r in rounds] == [2000, 4000, 6000, 8000, 10000]
    assert len(replica.report(rounds).splitlines()) == 5


def test_replica_knows_how_its_games_end() -> None:
    assert replica.outcome([1, 1, 1, 2, 2, 0, 0, 0, 0]) == 1
    assert replica.outcome([1, 2, 1, 1, 2, 2, 2, 1, 1]) == 0
    assert replica.outcome([1, 2, 0, 0, 0, 0, 0, 0, 0]) == -1


def test_rewards_with_michies_numbers_is_step_3() -> None:
    data = rewards.run(perfect_move, [(3, 1, -1)], range(1, 2), 300)
    random.seed(1)
    boxes: Boxes = {}
    assert data[0].runs[0] == tuple(play_game(boxes, perfect_move) for _ in range(300))


def test_rewards_report_and_chart(tmp_path: Path) -> None:
    data = rewards.run(perfect_move, [(3, 1, -1), (1, 1, -1), (3, 1, -3)], range(1, 3), 60)
    text = rewards.report(data)
    assert "+3/+1/-1" in text and "+3/+1/-3" in text
    assert "never came into play" in text  # Perfect never loses, so nothing is won
    line = data[0].chart()
    assert len(line) == 60 and line[0] in (1.0, -1.0, 0.0)
    path = rewards.draw_chart(data, tmp_path / "chart.png", "Perfect")
    assert path.read_bytes().startswith(b"\x89PNG")


def test_two_learners_report_draws_and_play_against_perfect() -> None:
    data = two_learners.run(range(1, 3), games=200, window=50, tests=20)
    assert [run.seed for run in data.runs] == [1, 2]
    for run in data.runs:
        assert len(run.results) == 200
        for counts in (run.x_vs_perfect, run.o_vs_perfect):
            assert sum(counts) == 20 and counts[0] == 0  # nobody beats Perfect
    assert "last 50 games" in two_learners.report(data)


def test_experiment_commands_print_their_results(menace: Callable[..., Ran]) -> None:
    ran = menace("experiment", "replica", "--rounds", "1")
    assert ran.code == 0
    assert "1687 won, 189 drawn, 124 lost" in ran.out
    ran = menace("experiment", "no-refill", "--runs", "3", "--games", "100")
    assert ran.code == 0 and "of 3 runs" in ran.out
    ran = menace("experiment", "two-learners", "--games", "50", "--tests", "5")
    assert ran.code == 0 and "X against Perfect" in ran.out


def test_rewards_command_takes_own_rewards(menace: Callable[..., Ran], tmp_path: Path) -> None:
    picture = tmp_path / "chart.svg"
    ran = menace(
        "experiment", "rewards", "--runs", "2", "--games", "50",
        "--reward", "3/1/-1", "--reward", "2,2,-5", "--picture", str(picture),
    )  # fmt: skip
    assert ran.code == 0
    assert "+2/+2/-5" in ran.out and picture.read_text().startswith("<?xml")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["experiment", "no-refil"], "did you mean no-refill?"),
        (["experiment", "chess"], "the experiments are: count, games, no-refill, replica, rewards"),
        (["experiment", "rewards", "--reward", "3/1"], "three whole numbers"),
        (["experiment", "rewards", "--picture", "chart.gif"], "must end in .png, .svg or .pdf"),
        (["experiment", "no-refill", "--runs", "0"], "0 is not in the range x>=1"),
    ],
)
def test_bad_experiment_arguments_get_a_reason_and_exit_2(
    menace: Callable[..., Ran], args: list[str], message: str
) -> None:
    ran = menace(*args)
    assert ran.code == 2
    assert message in ran.err


def test_count_shows_the_lessons_549946_boards_304_boxes_and_2201_without_symmetry(
    menace: Callable[..., Ran],
) -> None:
    ran = menace("experiment", "count")
    assert ran.code == 0
    assert "never stopping early: 549,946" in ran.out
    assert "stopping at a name met before:    627" in ran.out
    assert ran.out.splitlines()[5].split() == ["in", "all", "304", "2,201"]
    assert ran.out.splitlines()[1].split()[-2:] == ["1", "1"]


def test_games_with_michies_settings_are_step_3s_games(menace: Callable[..., Ran]) -> None:
    ran = menace("experiment", "games", "--seed", "1", "--games", "300")
    random.seed(1)
    boxes: Boxes = {}
    expected = [play_game(boxes, perfect_move) for _ in range(300)]
    assert [line.split()[1] for line in ran.out.splitlines()[1:301]] == expected
    assert ran.out.splitlines()[-1] == "300 games: 0 won, 260 drawn, 40 lost."


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--reward", "3/1"], "give 3 whole numbers"),
        (["--reward", "30/1/-1"], "from -10 to 10"),
        (["--start", "4/3/2/0"], "from 1 to 99"),
        (["--opponent", "michie"], "michie"),
    ],
)
def test_games_refuses_settings_the_widget_refuses(
    menace: Callable[..., Ran], options: list[str], words: str
) -> None:
    ran = menace("experiment", "games", *options)
    assert ran.code == 2
    assert words in ran.err
    assert "Traceback" not in ran.err
