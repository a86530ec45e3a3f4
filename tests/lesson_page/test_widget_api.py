"""The widget's JSON API: the server's engine, replayed from a seed and a log.

Seed 1 and 300 games against Perfect must give exactly ``menace step 3``: the same
per-50 counts, boxes opened and first box.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from menace_course.lesson.engine import GameRecord, play_game
from menace_course.lesson.experiments.page_steps import step3, tally
from menace_course.lesson.noughts import perfect_move, random_move

flask = pytest.importorskip("flask")

from tests.lesson_page.app import make_app  # noqa: E402

WORDS = {"w": "win", "d": "draw", "l": "loss"}


@pytest.fixture
def client() -> Any:
    return make_app().test_client()


def press(client: Any, seed: int, log: list[Any], action: Any, **extra: Any) -> dict[str, Any]:
    response = client.post("/lesson/api/widget", json={"seed": seed, "log": log, "action": action, **extra})
    assert response.status_code == 200, response.json
    return response.json  # type: ignore[no-any-return]


def test_seed_1_and_300_games_against_perfect_are_menace_step_3(client: Any) -> None:
    log: list[Any] = []
    for _ in range(3):
        answer = press(client, 1, log, {"type": "games", "count": 100, "opponent": "perfect"})
        log = answer["log"]
    results = [WORDS[letter] for letter in answer["results"]]
    first_box = {int(s): n for s, n in answer["first_box"].items()}
    lines = [
        *tally(results, 50),
        f"Boxes opened: {answer['tallies']['boxes']}",
        f"The first box: {first_box}",
    ]
    assert tuple(lines) == step3().lines


def test_a_log_replayed_on_a_fresh_server_gives_the_same_widget(client: Any) -> None:
    log: list[Any] = []
    for action in (
        {"type": "games", "count": 50, "opponent": "perfect"},
        {"type": "games", "count": 30, "opponent": "random"},
        {"type": "games", "count": 1, "opponent": "perfect"},
    ):
        answer = press(client, 7, log, action)
        log = answer["log"]
    again = press(make_app().test_client(), 7, log, None, boxes=True)
    assert again["results"] == answer["results"]
    assert again["tallies"] == answer["tallies"]
    assert again["segments"] == [
        {"start": 0, "opponent": "perfect"},
        {"start": 50, "opponent": "random"},
        {"start": 80, "opponent": "perfect"},
    ]
    assert sum(box["total"] for box in again["boxes"]) > 0


def test_one_game_shows_each_box_opened_as_the_engine_opened_it(client: Any) -> None:
    answer = press(client, 3, [], {"type": "games", "count": 1, "opponent": "random"})
    random.seed(3)
    record = GameRecord()
    boxes: dict[str, dict[int, int]] = {}
    result = play_game(boxes, random_move, record=record)
    game = answer["game"]
    assert game["result"] == result
    assert [m["square"] for m in game["moves"]] == record.moves
    change = {"win": 3, "draw": 1, "loss": -1}[result]
    assert len(game["cards"]) == len(record.opened) > 0
    for card, opened in zip(game["cards"], record.opened, strict=True):
        assert card["board"] == "".join(opened.board)
        assert card["drawn"] == opened.square
        assert {int(s): n for s, n in card["beads"].items()} == opened.beads_on_board()
        assert card["change"] == change
        assert card["board"][card["drawn"]] == " "


def test_a_game_against_you_waits_for_your_moves_then_teaches_menace(client: Any) -> None:
    waiting = press(client, 5, [], {"type": "human", "moves": []})
    assert waiting["game"]["your_turn"] and waiting["log"] == [] and waiting["tallies"]["played"] == 0
    moves: list[int] = []
    game = waiting["game"]
    while game["result"] is None:
        board = game["board"]
        moves.append(next(s for s in range(9) if board[s] == " "))
        answer = press(client, 5, [], {"type": "human", "moves": moves})
        game = answer["game"]
    assert answer["log"] == [{"type": "human", "moves": moves}]
    assert answer["tallies"]["played"] == 1
    assert answer["segments"] == [{"start": 0, "opponent": "you"}]
    assert all("change" in card for card in game["cards"])


def test_a_move_on_a_taken_square_is_refused_with_a_reason(client: Any) -> None:
    first = press(client, 5, [], {"type": "human", "moves": []})["game"]["moves"][0]["square"]
    response = client.post(
        "/lesson/api/widget", json={"seed": 5, "log": [], "action": {"type": "human", "moves": [first]}}
    )
    assert response.status_code == 400
    assert "taken" in response.json["message"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"seed": -1, "log": []}, "seed"),
        ({"seed": "1", "log": []}, "seed"),
        ({"seed": 1, "log": {}}, "log must be a list"),
        ({"seed": 1, "log": [{"type": "games", "count": 5001, "opponent": "perfect"}]}, "count"),
        ({"seed": 1, "log": [], "action": {"type": "games", "count": 1001, "opponent": "perfect"}}, "count"),
        ({"seed": 1, "log": [], "settings": {"reward": [3, 1]}}, "settings.reward"),
        ({"seed": 1, "log": [], "settings": {"start": [4, 3, 2, 0]}}, "starting beads"),
        ({"seed": 1, "log": [], "settings": {"symmetry": "no"}}, "symmetry"),
        ({"seed": 1, "log": [], "settings": {"beads": 4}}, "only 'reward'"),
        ({"seed": 1, "log": [{"type": "games", "count": 5, "opponent": "michie"}]}, "opponent"),
        ({"seed": 1, "log": [{"type": "human", "moves": [4]}]}, "not over"),
        ({"seed": 1, "log": [{"type": "games", "count": 1000, "opponent": "random"}] * 21}, "at most"),
    ],
)
def test_a_bad_request_gets_a_400_that_says_what_is_wrong(client: Any, body: Any, words: str) -> None:
    response = client.post("/lesson/api/widget", json=body)
    assert response.status_code == 400
    assert words in response.json["message"]


def test_the_process_random_generator_is_left_as_it_was(client: Any) -> None:
    random.seed(99)
    expected = random.Random(99).random()
    press(client, 1, [], {"type": "games", "count": 20, "opponent": "perfect"})
    assert random.random() == expected


def test_a_recorded_game_is_the_same_game_as_an_unrecorded_one() -> None:
    random.seed(1)
    plain = [play_game({}, perfect_move) for _ in range(1)]
    boxes_a: dict[str, dict[int, int]] = {}
    boxes_b: dict[str, dict[int, int]] = {}
    random.seed(1)
    a = [play_game(boxes_a, perfect_move) for _ in range(200)]
    random.seed(1)
    b = [play_game(boxes_b, perfect_move, record=GameRecord()) for _ in range(200)]
    assert a == b and boxes_a == boxes_b and plain[0] == a[0]
