"""The page's text holds the lesson: its sections, its numbers, its files and its printed outputs."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from menace_course.lesson import noughts, pixels
from tests.support import REPO

flask = pytest.importorskip("flask")

from tests.lesson_page.app import make_app  # noqa: E402


@pytest.fixture(scope="module")
def page() -> str:
    response = make_app().test_client().get("/lesson?seed=1")
    assert response.status_code == 200
    return str(response.data.decode("utf-8"))


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


@pytest.mark.parametrize(
    "fact",
    [
        "549,946 boards",
        "627 positions",
        "304 boxes",
        "would need 2,201",
        "ran out for good in 121 of the 200 runs",
        "his online MENACE starts with more beads than Michie's",
        "Pegasus 2 computer, which played about a game a second",
        "“an enormously more difficult and time-consuming task”",
        "“At first sight there are seven possible moves available. Considerations of symmetry, however, "
        "reduce these to four.”",
        "lost 35 of its first 50 games and none of its last 100",
        "learns a narrow path fast",
        "chess has around 10 44 positions, a 1 followed by 44 zeros",
        "AlphaGo, the program that beat the Go champion Lee Sedol in 2016",
        "millions of games against itself",
        "“after a few hundred games the two sides were both producing near-expert play”",
        "Do the numbers matter?",
        "4 × 4 board",
        "Grade 12, Learning from rewards",
        "How Can a Computer Never Lose at Tic-Tac-Toe?",
    ],
)
def test_the_page_states_each_fact_of_the_lesson(page: str, fact: str) -> None:
    assert fact in text_of(page)


@pytest.mark.parametrize("step", [1, 2, 3, 4])
def test_each_program_shows_the_lessons_printed_output_before_it_is_run(page: str, step: int) -> None:
    found = re.search(rf'id="step{step}".*?<pre class="expected"[^>]*>(.*?)</pre>', page, re.S)
    assert found is not None
    golden = (REPO / "tests" / "lesson" / "golden" / f"step{step}.txt").read_text(encoding="utf-8")
    assert html.unescape(found.group(1)).splitlines() == golden.splitlines()


@pytest.mark.parametrize(("filename", "module"), [("noughts.py", noughts), ("pixels.py", pixels)])
def test_the_files_on_this_page_are_on_the_page(page: str, filename: str, module: Any) -> None:
    found = re.search(rf'aria-label="The file {filename}">(.*?)</pre>', page, re.S)
    assert found is not None
    with open(module.__file__, encoding="utf-8") as file:
        assert html.unescape(found.group(1)) == file.read()


def test_no_challenge_starter_asks_for_a_terminal(page: str) -> None:
    assert "menace show" not in page
    assert page.count("The whole text: on this page, above the editor.") == 3
