"""With a seed, every widget setting plays on the page the games ``menace experiment games`` prints.

The widget is pressed one game at a time through its API (as "Play 1 game" and the
continuous play do), and the terminal plays the same number at once; the squares of every
game, and every result, must be the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support import Ran

flask = pytest.importorskip("flask")

from tests.lesson_page.app import make_app  # noqa: E402

GAMES = 12
CASES = [
    pytest.param("perfect", {}, [], id="michie-against-perfect"),
    pytest.param("random", {}, [], id="against-random"),
    pytest.param("menace", {}, [], id="a-second-learner-as-O"),
    pytest.param("perfect", {"reward": [1, 1, -3]}, ["--reward", "1/1/-3"], id="rewards"),
    pytest.param("random", {"start": [8, 6, 4, 2]}, ["--start", "8/6/4/2"], id="starting-beads"),
    pytest.param("random", {"symmetry": False}, ["--no-symmetry"], id="no-symmetry"),
    pytest.param(
        "menace",
        {"reward": [2, 0, -2], "start": [1, 1, 1, 1], "symmetry": False},
        ["--reward", "2/0/-2", "--start", "1/1/1/1", "--no-symmetry"],
        id="everything-at-once",
    ),
]


def widget_games(opponent: str, settings: dict[str, Any], seed: int) -> tuple[list[str], list[list[int]]]:
    client = make_app().test_client()
    log: list[Any] = []
    moves = []
    answer: dict[str, Any] = {}
    for _ in range(GAMES):
        body = {
            "seed": seed,
            "settings": settings,
            "log": log,
            "action": {"type": "games", "count": 1, "opponent": opponent},
        }
        response = client.post("/lesson/api/widget", json=body)
        assert response.status_code == 200, response.json
        answer = response.json
        log = answer["log"]
        moves.append([move["square"] for move in answer["game"]["moves"]])
    assert log == [{"type": "games", "count": GAMES, "opponent": opponent}]  # one entry, however pressed
    words = {"w": "win", "d": "draw", "l": "loss"}
    return [words[letter] for letter in answer["results"]], moves


def terminal_games(ran: Ran) -> tuple[list[str], list[list[int]]]:
    results, moves = [], []
    for line in ran.out.splitlines()[1 : GAMES + 1]:
        _number, result, *squares = line.split()
        results.append(result)
        moves.append([int(s) for s in squares])
    return results, moves


@pytest.mark.parametrize(("opponent", "settings", "options"), CASES)
def test_the_widget_plays_the_games_menace_experiment_games_prints(
    menace: Callable[..., Ran], opponent: str, settings: dict[str, Any], options: list[str]
) -> None:
    ran = menace(
        "experiment", "games", "--seed", "7", "--opponent", opponent, "--games", str(GAMES), *options
    )
    assert ran.code == 0, ran.err
    on_the_page = widget_games(opponent, settings, 7)
    in_the_terminal = terminal_games(ran)
    assert on_the_page == in_the_terminal
    assert len(in_the_terminal[1]) == GAMES


def test_the_settings_change_the_games(menace: Callable[..., Ran]) -> None:
    plain = menace("experiment", "games", "--seed", "7", "--opponent", "random", "--games", str(GAMES)).out
    for options in (["--reward", "1/1/-3"], ["--start", "8/6/4/2"], ["--no-symmetry"]):
        changed = menace(
            "experiment", "games", "--seed", "7", "--opponent", "random", "--games", str(GAMES), *options
        )
        assert changed.out != plain, options
