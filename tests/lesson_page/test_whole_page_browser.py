"""The whole lesson page in headless Chromium: every section, every widget control, the trained board.

A walk from the top of the page to its end, the way a student reads it: each of the lesson's
sections is there, each widget control is used once (and does what it says), the board under
Step 3 plays a whole game against the trained MENACE, the two helper files can be read, and
a program's output is compared with the lesson's, line by line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lesson_page.live import LiveServer
from tests.support import Ran

flask = pytest.importorskip("flask")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The lesson's sections, in its order (the page's h2 headings).
SECTIONS = [
    "MENACE at work",
    "Watch one game",
    "Watch it learn",
    "Change the teacher",
    "Try to beat it",
    "A box for every position",
    "Reward and punishment",
    "Program it",
    "Reinforcement learning, in your hands",
    "Change the rewards",
    "Two learners",
    "Questions to think about",
    "Challenges",
    "Other topics",
]
STEPS = [
    "Step 1: how many boxes?",
    "Step 2: a box of beads",
    "Step 3: play, and learn",
    "Step 4: against a random player",
]


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    from tests.lesson_page.app import make_app

    live = LiveServer(make_app())
    yield live
    live.close()


def wait(driver: Any, condition: Any, seconds: float = 60) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(condition)


def by_id(driver: Any, element_id: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id)


def state(driver: Any) -> str:
    return str(by_id(driver, "widget").get_attribute("data-state"))


def idle(driver: Any) -> bool:
    return by_id(driver, "widget").get_attribute("aria-busy") == "false"


def press(driver: Any, button: str) -> None:
    wait(driver, idle)
    by_id(driver, button).click()
    wait(driver, idle)


def summary(driver: Any) -> dict[str, Any]:
    return driver.execute_script("return window.menaceWidget.summary")  # type: ignore[no-any-return]


def board_of(driver: Any, board_id: str) -> str:
    from selenium.webdriver.common.by import By

    return "".join(b.text or " " for b in driver.find_elements(By.CSS_SELECTOR, f"#{board_id} .square"))


def set_number(driver: Any, element_id: str, value: int) -> None:
    field = by_id(driver, element_id)
    field.clear()
    field.send_keys(str(value))


def page_weight(server: LiveServer, driver: Any) -> tuple[int, int]:
    """The page and everything it loads from this server: bytes as sent, and gzipped."""
    import gzip
    import urllib.request

    loaded = driver.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name)"
        ".filter((u) => u.includes('/static/'))"
    )
    urls = [server.url + "/lesson?seed=3", *loaded]
    plain = zipped = 0
    for url in urls:
        with urllib.request.urlopen(url, timeout=30) as response:
            data = response.read()
        plain += len(data)
        zipped += len(gzip.compress(data, 9))
    return plain, zipped


def test_the_page_holds_every_section_of_the_lesson(server: LiveServer, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server.url + "/lesson?seed=3")
    wait(driver, lambda d: state(d) == "ready")
    # Measured, printed, never asserted: the machine may be busy.
    paint = driver.execute_script(
        "const p = performance.getEntriesByName('first-contentful-paint')[0]; return p ? p.startTime : null"
    )
    ready = driver.execute_script(
        "const m = performance.getEntriesByName('menace-widget-ready')[0]; return m ? m.startTime : null"
    )
    plain, zipped = page_weight(server, driver)
    print(
        f"\nlesson page: first contentful paint {paint} ms, widget ready {ready} ms, "
        f"weight {plain / 1024:.0f} KiB ({zipped / 1024:.0f} KiB gzipped)"
    )
    assert [h.text for h in driver.find_elements(By.CSS_SELECTOR, "main h2[id]")] == SECTIONS
    assert [h.text for h in driver.find_elements(By.CSS_SELECTOR, "article.program h3")] == STEPS
    text = driver.find_element(By.TAG_NAME, "main").text
    for fact in (
        "549,946",
        "2,201",
        "304",
        "627",
        "121 of the 200 runs",
        "Pegasus 2",
        "enormously more difficult",
        "Considerations of",
        "narrow path",
        "AlphaGo",
        "Lee Sedol",
        "near-expert play",
        "4 × 4",
    ):
        assert fact in text, fact
    for starter in driver.find_elements(By.CSS_SELECTOR, "article.challenge textarea"):
        assert "menace show" not in (starter.get_attribute("value") or "")
    assert "menace show" not in text


def test_every_widget_control_once(server: LiveServer, driver: Any, menace: Callable[..., Ran]) -> None:
    from selenium.webdriver.support.ui import Select

    driver.get(server.url + "/lesson?seed=3")
    wait(driver, lambda d: state(d) == "ready")

    # Play 1 game, slowly: the cards come one by one, and the +3/+1/-1 badges only at the end.
    driver.execute_script("window.menaceWidget.delay = 500")
    by_id(driver, "play-one").click()
    wait(driver, lambda d: d.find_elements("css selector", "#cards .card[data-move]"), 30)
    assert state(driver) == "playing"
    assert driver.find_elements("css selector", "#cards .change") == []
    wait(driver, lambda d: state(d) == "over")
    cards = driver.find_elements("css selector", "#cards .card[data-move]")
    assert len(driver.find_elements("css selector", "#cards .change")) == len(cards) >= 1
    driver.execute_script("window.menaceWidget.delay = 0")

    # 100 games, then O: Random.
    press(driver, "play-hundred")
    assert summary(driver)["tallies"]["played"] == 101
    Select(by_id(driver, "opponent")).select_by_value("random")
    press(driver, "play-hundred")
    assert [s["opponent"] for s in summary(driver)["segments"]] == ["perfect", "random"]

    # The numbers: starting beads 1 a color against Perfect. The first box (3 beads) empties
    # after 3 losses, so MENACE resigns game 4 on the empty board, and the board shows it empty.
    assert by_id(driver, "machine-settings").get_attribute("open") is not None  # the numbers are in view
    for n in (1, 2, 3, 4):
        set_number(driver, f"start-{n}", 1)
    Select(by_id(driver, "opponent")).select_by_value("perfect")
    set_number(driver, "seed", 1)
    press(driver, "apply-settings")
    assert summary(driver)["settings"]["start"] == [1, 1, 1, 1]
    for _ in range(3):
        press(driver, "play-one")
    assert board_of(driver, "board").strip()
    press(driver, "play-one")
    assert summary(driver)["results"][-1] == "l"
    assert driver.find_elements("css selector", "#cards .card-resigned")
    assert board_of(driver, "board") == " " * 9

    # Rewards and symmetry off, then a second learning MENACE as O, played on at full speed.
    by_id(driver, "michie").click()
    assert by_id(driver, "start-1").get_attribute("value") == "4"
    set_number(driver, "reward-win", 2)
    set_number(driver, "reward-draw", 0)
    set_number(driver, "reward-loss", -2)
    by_id(driver, "symmetry").click()
    Select(by_id(driver, "opponent")).select_by_value("menace")
    set_number(driver, "seed", 11)
    press(driver, "start")
    assert summary(driver)["settings"] == {"reward": [2, 0, -2], "start": [4, 3, 2, 1], "symmetry": False}
    Select(by_id(driver, "speed")).select_by_value("200")
    by_id(driver, "play-on").click()
    assert by_id(driver, "play-on").get_attribute("aria-pressed") == "true", by_id(driver, "status").text
    wait(driver, lambda d: summary(d)["tallies"]["played"] >= 60, 120)
    by_id(driver, "play-on").click()
    wait(
        driver, lambda d: idle(d) and d.find_element("id", "play-on").get_attribute("aria-pressed") == "false"
    )
    wait(driver, idle)
    wait(driver, lambda d: d.find_element("id", "show-boxes").is_enabled(), 10)  # Stop gives the buttons back
    assert "Stopped" in by_id(driver, "status").text
    played = summary(driver)["tallies"]
    assert played["o_boxes"] > 0

    # The same games in the terminal: the command the page shows plays them.
    command = by_id(driver, "terminal-command").text
    found = re.search(r"menace experiment games (.*)$", command)
    assert found is not None, command
    ran = menace("experiment", "games", *found.group(1).split())
    words = {"win": "w", "draw": "d", "loss": "l"}
    in_the_terminal = "".join(
        words[line.split()[1]] for line in ran.out.splitlines()[1 : played["played"] + 1]
    )
    assert in_the_terminal == summary(driver)["results"]

    # All boxes at once: MENACE's, and the second MENACE's.
    press(driver, "show-boxes")
    wait(driver, lambda d: d.find_elements("css selector", "#box-list .box-card"), 30)
    assert len(driver.find_elements("css selector", "#box-list .box-card")) == played["boxes"], by_id(
        driver, "status"
    ).text
    assert len(driver.find_elements("css selector", "#o-box-list .box-card")) == played["o_boxes"]
    press(driver, "show-boxes")


def test_the_lessons_buttons_set_up_the_widget(server: LiveServer, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server.url + "/lesson?seed=4")
    wait(driver, lambda d: state(d) == "ready")
    driver.find_element(By.CSS_SELECTOR, "button[data-reward='1,1,-1']").click()
    wait(driver, lambda d: idle(d) and summary(d)["settings"]["reward"] == [1, 1, -1])
    assert by_id(driver, "reward-win").get_attribute("value") == "1"
    by_id(driver, "two-learners-try").click()
    wait(driver, lambda d: summary(d)["tallies"]["played"] >= 5, 120)
    assert by_id(driver, "opponent").get_attribute("value") == "menace"
    by_id(driver, "play-on").click()
    wait(driver, lambda d: d.find_element("id", "play-on").get_attribute("aria-pressed") == "false")


def test_the_board_after_step_3_plays_a_game_against_the_trained_menace(
    server: LiveServer, driver: Any
) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server.url + "/lesson?seed=3")
    trained = wait(driver, lambda d: d.find_element(By.ID, "trained"))
    driver.execute_script("arguments[0].scrollIntoView()", trained)
    by_id(driver, "trained-new").click()
    moves = 0
    while True:
        wait(driver, lambda d: trained.get_attribute("data-state") in ("your-turn", "over"))
        if trained.get_attribute("data-state") == "over":
            break
        if moves == 0:
            assert board_of(driver, "trained-board") == "    X    "  # its first box: all on the center
        free = [b for b in trained.find_elements(By.CSS_SELECTOR, ".square") if b.is_enabled()]
        free[0].click()
        moves += 1
    assert moves >= 2
    assert trained.get_attribute("data-result") in ("win", "draw", "loss")
    assert "Against your MENACE" in by_id(driver, "trained-score").text


def test_the_files_on_the_page_can_be_read_and_a_program_is_compared_with_the_lessons_output(
    server: LiveServer, driver: Any, artifacts: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get(server.url + "/lesson?seed=3")
    for name, words in (("noughts-py", "def winner"), ("pixels-py", "def show_grid")):
        details = by_id(driver, f"file-{name}")
        details.find_element(By.TAG_NAME, "summary").click()
        assert words in details.find_element(By.CSS_SELECTOR, "pre.file-text").text
    article = by_id(driver, "step1")
    expected = article.find_element(By.CSS_SELECTOR, "pre.expected").text
    assert expected.splitlines()[-2:] == ["In all: 304", "Positions searched: 627"]
    wait(driver, lambda d: article.find_elements(By.CSS_SELECTOR, ".cm-content"))
    article.find_element(By.CSS_SELECTOR, "button.edit").click()
    content = article.find_element(By.CSS_SELECTOR, ".cm-content")
    content.click()
    content.send_keys(Keys.CONTROL, Keys.END)
    content.send_keys(Keys.ENTER, "print('one more line')")
    article.find_element(By.CSS_SELECTOR, "button.run").click()
    marked = wait(driver, lambda d: article.find_elements(By.CSS_SELECTOR, "pre.compared mark.differs"), 90)
    assert [m.text for m in marked] == ["one more line"]
    assert "1 line differs" in article.find_element(By.CSS_SELECTOR, ".comparison").text
    driver.save_screenshot(str(artifacts / "20_step1_compared.png"))
