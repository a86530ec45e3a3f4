"""The lesson page in headless Chromium, pressed the way a student presses it.

Start, Play 1 game, 100 games, O = Random, O = You (clicking squares), the boxes, and a
program's Run and Edit; at each stage the page is checked against the engine, and a
screenshot is kept in tests/artifacts/lesson_page/ for a person to look at.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from menace_course.lesson.engine import GameRecord, play_game
from menace_course.lesson.experiments.page_steps import step3, tally
from menace_course.lesson.noughts import perfect_move
from tests.lesson_page.live import LiveServer

flask = pytest.importorskip("flask")

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    from tests.lesson_page.app import make_app

    live = LiveServer(make_app())
    yield live
    live.close()


def wait(driver: Any, condition: Any, seconds: float = 30) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(condition)


def widget(driver: Any) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, "widget")


def idle(driver: Any) -> bool:
    return widget(driver).get_attribute("aria-busy") == "false"


def press(driver: Any, button: str) -> None:
    from selenium.webdriver.common.by import By

    wait(driver, idle)
    driver.find_element(By.ID, button).click()
    wait(driver, idle)


def shot(driver: Any, artifacts: Path, name: str, element_id: str | None = None) -> None:
    if element_id:
        driver.execute_script(f"document.getElementById('{element_id}').scrollIntoView({{block: 'start'}})")
    driver.save_screenshot(str(artifacts / f"{name}.png"))


def tallies(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.ID, "tallies").text)


def test_a_student_watches_trains_and_plays_menace(server: LiveServer, driver: Any, artifacts: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(server.url + "/lesson?seed=1")
    wait(driver, lambda d: widget(d).get_attribute("data-state") == "ready")
    assert driver.find_element(By.ID, "seed").get_attribute("value") == "1"
    shot(driver, artifacts, "01_start")

    # Play 1 game, watched move by move: a card for each box opened, then the changes.
    widget(driver).find_element(By.ID, "play-one").click()
    wait(driver, lambda d: widget(d).get_attribute("data-state") == "over", 60)
    random.seed(1)
    record = GameRecord()
    result = play_game({}, perfect_move, record=record)
    cards = driver.find_elements(By.CSS_SELECTOR, "#cards .card[data-move]")
    assert len(cards) == len(record.opened) >= 2
    change = {"win": "+3", "draw": "+1", "loss": "−1"}[result]
    for card, opened in zip(cards, record.opened, strict=True):
        beads = {
            int(cell.get_attribute("data-square")): int(cell.text)
            for cell in card.find_elements(By.CSS_SELECTOR, ".cell")
            if cell.find_elements(By.CSS_SELECTOR, ".bead")
        }
        assert beads == opened.beads_on_board()
        (ringed,) = card.find_elements(By.CSS_SELECTOR, ".cell.drawn")
        assert int(ringed.get_attribute("data-square")) == opened.square
        marks = "".join(
            cell.text if cell.text in "XO" and cell.text else " "
            for cell in card.find_elements(By.CSS_SELECTOR, ".cell")
        )
        assert marks.replace(" ", "") == "".join(opened.board).replace(" ", "")
        assert card.find_element(By.CSS_SELECTOR, ".change").text == change
        assert change in card.get_attribute("aria-label")
    board = "".join(b.text or " " for b in driver.find_elements(By.CSS_SELECTOR, "#board .square"))
    expected = [" "] * 9
    for number, square in enumerate(record.moves):
        expected[square] = "XO"[number % 2]
    assert board == "".join(expected)
    assert "1 game played" in tallies(driver)
    shot(driver, artifacts, "02_one_game", "widget")

    # Start again, then 3 x 100 games against Perfect: exactly menace step 3.
    press(driver, "start")
    assert "No games" in tallies(driver) or "0 games played" in tallies(driver)
    for _ in range(3):
        press(driver, "play-hundred")
    summary = driver.execute_script("return window.menaceWidget.summary")
    results = [{"w": "win", "d": "draw", "l": "loss"}[c] for c in summary["results"]]
    expected_lines = step3().lines
    assert tuple(tally(results, 50)) == expected_lines[:6]
    text = tallies(driver)
    boxes = re.search(r"Boxes opened: (\d+)", text)
    assert boxes is not None and f"Boxes opened: {boxes.group(1)}" == expected_lines[6]
    won, drawn, lost = (results.count(r) for r in ("win", "draw", "loss"))
    assert f"300 games played: {won} won, {drawn} drawn, {lost} lost." in text
    line = driver.find_element(By.CSS_SELECTOR, "#chart .score-line")
    assert int(line.get_attribute("data-last")) == 3 * won + drawn - lost
    assert driver.find_elements(By.CSS_SELECTOR, "#chart .opponent-change") == []
    shot(driver, artifacts, "03_three_hundred_games", "chart")

    # The boxes: the first box holds nearly all its beads on one colour, as Step 3 prints.
    press(driver, "show-boxes")
    first = driver.find_element(By.CSS_SELECTOR, "#box-list .box-card.first")
    beads = {
        int(cell.get_attribute("data-square")): int(cell.text)
        for cell in first.find_elements(By.CSS_SELECTOR, ".cell")
        if cell.text
    }
    assert f"The first box: {beads}" == expected_lines[7]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#box-list .box-card")) == int(boxes.group(1))
    for box in driver.find_elements(By.CSS_SELECTOR, "#box-list .box-card"):
        total = sum(int(c.text) for c in box.find_elements(By.CSS_SELECTOR, ".cell .bead"))
        words = box.find_element(By.CSS_SELECTOR, ".card-caption").text
        assert words == f"{total} bead{'' if total == 1 else 's'}", words
    shot(driver, artifacts, "04_boxes", "box-panel")
    press(driver, "show-boxes")

    # O = Random: 100 more games, and a dashed line where the opponent changed.
    Select(driver.find_element(By.ID, "opponent")).select_by_visible_text("Random")
    press(driver, "play-hundred")
    (dashed,) = driver.find_elements(By.CSS_SELECTOR, "#chart .opponent-change")
    assert dashed.get_attribute("data-game") == "300"
    assert dashed.get_attribute("stroke-dasharray")
    assert "400 games played" in tallies(driver)
    assert "Against Random from game 301" in driver.find_element(By.CSS_SELECTOR, "#chart svg").get_attribute(
        "aria-label"
    )
    shot(driver, artifacts, "05_random", "chart")

    # O = You: the student plays O by clicking squares (and a keyboard press starts it).
    Select(driver.find_element(By.ID, "opponent")).select_by_visible_text("You")
    assert not driver.find_element(By.ID, "play-hundred").is_enabled()
    from selenium.webdriver.common.keys import Keys

    driver.find_element(By.ID, "play-one").send_keys(Keys.ENTER)
    wait(driver, lambda d: widget(d).get_attribute("data-state") == "your-turn" and idle(d))
    clicks = 0
    while widget(driver).get_attribute("data-state") != "over":
        wait(driver, lambda d: widget(d).get_attribute("data-state") in ("your-turn", "over") and idle(d))
        if widget(driver).get_attribute("data-state") == "over":
            break
        if clicks == 1:
            shot(driver, artifacts, "06_your_turn", "widget")
        empty = [b for b in driver.find_elements(By.CSS_SELECTOR, "#board .square") if b.is_enabled()]
        assert empty, "it is your turn, so some square must be clickable"
        widget(driver).find_element(
            By.CSS_SELECTOR, f".square[data-square='{empty[-1].get_attribute('data-square')}']"
        ).click()
        clicks += 1
        wait(driver, lambda d: idle(d))
    assert clicks >= 2
    assert "401 games played" in tallies(driver)
    dashes = driver.find_elements(By.CSS_SELECTOR, "#chart .opponent-change")
    assert [d.get_attribute("data-game") for d in dashes] == ["300", "400"]
    for card in driver.find_elements(By.CSS_SELECTOR, "#cards .card[data-move]"):
        assert card.find_element(By.CSS_SELECTOR, ".change").text in ("+3", "+1", "−1")
    shot(driver, artifacts, "07_you_played", "widget")


def test_a_student_runs_and_edits_a_step_program(server: LiveServer, driver: Any, artifacts: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get(server.url + "/lesson?seed=1")
    article = wait(driver, lambda d: d.find_element(By.ID, "step3"))
    wait(driver, lambda d: article.find_elements(By.CSS_SELECTOR, ".cm-content"))
    article.find_element(By.CSS_SELECTOR, "button.run").click()
    printed = wait(driver, lambda d: article.find_elements(By.CSS_SELECTOR, "pre.printed"), 60)[0]
    assert tuple(printed.text.splitlines()) == step3().lines
    assert article.find_elements(By.CSS_SELECTOR, ".picture svg rect")
    shot(driver, artifacts, "08_step3_run", "step3")

    article.find_element(By.CSS_SELECTOR, "button.edit").click()
    content = article.find_element(By.CSS_SELECTOR, ".cm-content")
    assert content.get_attribute("contenteditable") == "true"
    content.click()
    content.send_keys(Keys.CONTROL, Keys.END)
    content.send_keys(Keys.ENTER, "print('edited by a student')")
    article.find_element(By.CSS_SELECTOR, "button.run").click()
    wait(
        driver,
        lambda d: "edited by a student" in article.find_element(By.CSS_SELECTOR, "pre.printed").text,
        60,
    )
    # The picture of what the edited program printed: its last lines, with the new one.
    printed = article.find_element(By.CSS_SELECTOR, "pre.printed")
    driver.execute_script("arguments[0].scrollIntoView({block: 'end'})", printed)
    shot(driver, artifacts, "09_step3_edited")


def test_a_game_against_you_can_be_played_with_the_keyboard_alone(
    server: LiveServer, driver: Any, artifacts: Path
) -> None:
    """Tab to the controls, Enter to play, Enter on a square: focus follows the game, every
    control and square has a name a screen reader reads, and the bead counts are numbers."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get(server.url + "/lesson?seed=5")
    wait(driver, lambda d: widget(d).get_attribute("data-state") == "ready")
    for control in widget(driver).find_elements(By.CSS_SELECTOR, "button, select, input"):
        named = control.accessible_name
        assert named and named.strip(), control.get_attribute("outerHTML")[:200]
    driver.find_element(By.ID, "opponent").send_keys("You")
    assert driver.find_element(By.ID, "opponent").get_attribute("value") == "you"
    driver.find_element(By.ID, "play-one").send_keys(Keys.ENTER)
    moves = 0
    while True:
        wait(driver, lambda d: widget(d).get_attribute("data-state") in ("your-turn", "over") and idle(d))
        if widget(driver).get_attribute("data-state") == "over":
            break
        focused = driver.switch_to.active_element
        assert "square" in (focused.get_attribute("class") or ""), (
            "on the student's turn the keyboard focus is on the board, not lost: "
            + (focused.get_attribute("outerHTML") or "")[:200]
        )
        assert focused.accessible_name.endswith(", empty") and focused.is_enabled()
        if moves == 1:
            shot(driver, artifacts, "11_keyboard_turn", "widget")
        focused.send_keys(Keys.ARROW_RIGHT)  # the arrows move around the board
        focused = driver.switch_to.active_element
        if not focused.is_enabled():
            focused.send_keys(Keys.ARROW_LEFT)
            focused = driver.switch_to.active_element
        focused.send_keys(Keys.ENTER)
        moves += 1
    assert moves >= 2
    assert "1 game played" in tallies(driver)
    # The game is over: the keyboard focus is on Play 1 game (ready for the next), not lost.
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "play-one", 10)
    for card in driver.find_elements(By.CSS_SELECTOR, "#cards .card[data-move]"):
        label = card.get_attribute("aria-label")
        assert re.search(r"\d+ \w+ beads?", label) and "Change" in label, label
