"""The board after Step 3: a game against Step 3's MENACE after its 300 games, learning nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest

from menace_course.lesson.engine import Boxes, choose_move, play_game
from menace_course.lesson.noughts import perfect_move

flask = pytest.importorskip("flask")

from tests.lesson_page.app import make_app  # noqa: E402


@pytest.fixture
def client() -> Any:
    return make_app().test_client()


def move(client: Any, game: int, moves: list[int]) -> Any:
    return client.post("/lesson/api/trained", json={"game": game, "moves": moves})


def step3_boxes() -> Boxes:
    random.seed(1)
    boxes: Boxes = {}
    for _ in range(300):
        play_game(boxes, perfect_move)
    return boxes


def test_menace_opens_with_a_bead_from_step_3s_first_box(client: Any) -> None:
    boxes = step3_boxes()
    assert boxes[" " * 9] == {0: 0, 1: 0, 4: 245}
    for game in range(5):
        answer = move(client, game, []).json
        assert answer["moves"] == [4]  # every bead of the first box is on the center
        assert answer["result"] is None and answer["board"] == "    X    "


def test_a_whole_game_is_played_from_the_trained_boxes_and_teaches_them_nothing(client: Any) -> None:
    boxes = step3_boxes()
    before = {position: dict(box) for position, box in boxes.items()}
    moves: list[int] = []
    answer = move(client, 3, moves).json
    while answer["result"] is None:
        moves.append(answer["board"].index(" "))
        answer = move(client, 3, moves).json
    assert answer["result"] in ("win", "draw", "loss")
    assert answer["moves"][1::2] == moves
    random.seed(3)
    board = [" "] * 9
    for number, square in enumerate(answer["moves"]):
        if number % 2 == 0:
            assert choose_move(before, board) == square
        board[square] = "XO"[number % 2]
    assert move(client, 3, moves).json == answer  # the same game number, the same game
    assert step3_boxes() == before


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"game": -1, "moves": []}, "game"),
        ({"game": 0, "moves": [9]}, "squares"),
        ({"game": 0, "moves": [4]}, "taken"),
        ({"game": 0, "moves": "4"}, "squares"),
    ],
)
def test_a_bad_move_is_refused_with_a_reason(client: Any, body: Any, words: str) -> None:
    response = client.post("/lesson/api/trained", json=body)
    assert response.status_code == 400
    assert words in response.json["message"]


def test_the_board_and_the_page_leave_the_process_random_generator_as_it_was() -> None:
    from menace_course.service.lesson.views import lesson_output

    lesson_output.cache_clear()
    client = make_app().test_client()
    random.seed(99)
    expected = random.Random(99).random()
    client.get("/lesson")  # computes the lesson's printed outputs, which seed the generator
    move(client, 2, [])
    assert random.random() == expected
