"""Run and Edit: the Step programs run in the sandbox, edited or not, and the server draws."""

from __future__ import annotations

import re
from typing import Any

import pytest

from menace_course.lesson.experiments.page_steps import STEPS

flask = pytest.importorskip("flask")

from menace_course.service.lesson.views import step_source  # noqa: E402
from tests.lesson_page.app import make_app  # noqa: E402


def run(source: str, sandbox: str = "auto") -> dict[str, Any]:
    client = make_app(MENACE_SANDBOX=sandbox).test_client()
    response = client.post("/lesson/api/run", json={"step": 3, "source": source})
    assert response.status_code == 200, response.json
    return response.json  # type: ignore[no-any-return]


def program(number: int) -> str:
    from menace_course.course import find_course
    from tests.support import REPO

    source = step_source(number, find_course(REPO))
    assert source is not None and "from menace_course" not in source
    return source


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_each_step_prints_what_the_page_prints(number: int) -> None:
    answer = run(program(number))
    assert answer["error"] is None and answer["problem"] is None
    assert tuple(answer["printed"].splitlines()) == STEPS[number]().lines
    assert len(answer["pictures"]) == (1 if number >= 3 else 0)


def test_the_picture_has_a_square_for_every_game() -> None:
    (svg,) = run(program(3))["pictures"]
    assert svg.startswith("<svg") and svg.count("<rect") == 300 + 1  # the games and the background


def test_an_edited_program_runs_as_edited_with_its_own_line_numbers() -> None:
    edited = program(3).replace("range(300)", "range(60)").replace("range(0, 300, 50)", "range(0, 60, 50)")
    answer = run(edited)
    assert answer["printed"].startswith("Games 1–50: 0 won, 15 drawn, 35 lost")
    broken = run("x = 1\ndef f():\n    return 1 / 0\nprint(f())\n")
    assert broken["error"]["type"] == "ZeroDivisionError"
    assert [(f["line"], f["code"]) for f in broken["error"]["frames"]] == [
        (4, "print(f())"),
        (3, "return 1 / 0"),
    ]


def test_a_syntax_error_names_the_line() -> None:
    answer = run("print('ok')\ndef f(:\n    pass\n")
    assert answer["error"]["type"] == "SyntaxError"
    assert answer["error"]["frames"][-1]["line"] == 2
    assert "submission.py" not in answer["error"]["message"]


def test_an_indentation_error_names_its_line_too() -> None:
    answer = run("print('ok')\nfor i in range(3):\nprint(i)\n")
    assert answer["error"]["type"] == "IndentationError"
    assert answer["error"]["frames"][-1]["line"] == 3
    assert answer["error"]["frames"][-1]["code"] == "print(i)"
    assert "submission.py" not in answer["error"]["message"]


@pytest.mark.slow
def test_a_program_that_never_stops_is_stopped_at_the_checks_limit_and_told_how_long_it_took() -> None:
    answer = run("while True:\n    pass\n")
    assert "its 2 seconds of running time were up" in answer["problem"]
    took = int(re.search(r"\((\d+) seconds in all", answer["problem"]).group(1))
    assert took >= 2


@pytest.mark.bwrap
def test_an_edited_program_cannot_see_the_servers_files_or_network() -> None:
    from tests.support import REPO

    secrets = [str(REPO / "reference" / "after_game.py"), str(REPO / "hidden_tests")]
    source = (
        "import os, socket\n"
        f"print(os.path.exists('/etc/passwd'), [os.path.exists(p) for p in {secrets!r}])\n"
        "try:\n    socket.create_connection(('127.0.0.1', 22), timeout=1)\n    print('net')\n"
        "except OSError:\n    print('no network')\n"
    )
    answer = run(source, "bwrap")
    assert answer["printed"] == "False [False, False]\nno network\n"


def test_a_picture_the_server_cannot_draw_is_a_note_not_a_crash() -> None:
    answer = run("from pixels import show_grid\nshow_grid([['a']], {'a': 'no-such-colour'})\n")
    assert answer["pictures"] == [] and "could not be drawn" in answer["notes"][0]


def test_a_program_whose_pictures_are_too_large_to_send_back_is_told_so_not_that_python_stopped() -> None:
    answer = run("from pixels import show_grid\nshow_grid([['a'] * 1500] * 1500, {'a': 'red'})\n")
    assert "more than the page can be sent back (over 1 MiB)" in answer["problem"]
    assert "stopped Python" not in answer["problem"]


def test_a_request_without_a_program_gets_a_400() -> None:
    client = make_app().test_client()
    assert client.post("/lesson/api/run", json={"step": 1}).status_code == 400
