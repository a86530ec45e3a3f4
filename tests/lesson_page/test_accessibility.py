"""The lesson page and the challenge page for everyone: axe-core, the keyboard, a phone.

axe-core (the npm package, ``frontend/node_modules/axe-core``, installed by ``npm ci``) is
injected into Debian's headless Chromium and run on the page in each of its states: as
loaded, after games, on the student's turn against MENACE, and after a challenge was
checked; and on the service's challenge page. No serious or critical violation may be
left. A whole game is played with the keyboard alone; the editors say how to leave them
and Escape then Tab does; at a phone's size (390 x 844) the chart's labels are readable,
printed lines are not cut off and nothing makes the page wider than the screen.

It also prints (never asserts) first paint, the moment the widget is ready and the page's
compressed weight, for a person to read: ``pytest -s tests/lesson_page/test_accessibility.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lesson_page.live import LiveServer
from tests.support import REPO

pytest.importorskip("menace_course.service.app")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AXE = REPO / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
#: What must be fixed before a page ships; "moderate" and "minor" are printed, not failed.
BLOCKING = ("serious", "critical")
#: The answer typed into a challenge: right on the examples, wrong on a hidden test.
NO_FLOOR = [
    "def after_game(beads, square, result):",
    "new = list(beads)",
    "new[square] += {'win': 3, 'draw': 1, 'loss': -1}[result]",
    "return new",
]
#: Installed before each page's own scripts: the moment the widget says it is ready.
READY_PROBE = """
window.__menaceReadyAt = null;
new MutationObserver((changes, observer) => {
  const widget = document.getElementById("widget");
  if (widget && widget.dataset.state === "ready" && window.__menaceReadyAt === null) {
    window.__menaceReadyAt = performance.now();
    observer.disconnect();
  }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-state"], childList: true});
"""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    if not AXE.is_file():
        import os

        if os.environ.get("CI"):
            pytest.fail("CI must run the accessibility tests: run `npm ci` in frontend/ first (.ci/run does)")
        pytest.skip("axe-core is not installed: run `npm ci` in frontend/")
    from tests.service.support import make_app, stop_app

    app = make_app(f"sqlite:///{tmp_path_factory.mktemp('a11y-db') / 'service.sqlite3'}", open=True)
    server = LiveServer(app)
    try:
        yield server
    finally:
        server.close()
        stop_app(app)


def wait(driver: Any, condition: Any, seconds: float = 60) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(condition)


def widget(driver: Any) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, "widget")


def idle(driver: Any) -> bool:
    return bool(widget(driver).get_attribute("aria-busy") == "false")


def open_lesson(driver: Any, url: str) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": READY_PROBE})
    driver.get(url + "/lesson?seed=3")
    wait(driver, lambda d: widget(d).get_attribute("data-state") == "ready" and idle(d))
    wait(driver, lambda d: len(d.find_elements("css selector", ".cm-content")) >= 7)


def violations(driver: Any) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now, serious and critical ones only."""
    if not driver.execute_script("return Boolean(window.axe)"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    driver.set_script_timeout(120)
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then((r) => done(r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 6)}))))"
        ".catch((e) => done([{id: 'axe-failed', impact: 'critical', help: String(e), nodes: []}]));"
    )
    for item in found:
        if item["impact"] not in BLOCKING:
            print(f"axe ({item['impact']}): {item['id']}: {item['help']} {item['nodes']}")
    return [item for item in found if item["impact"] in BLOCKING]


def assert_accessible(driver: Any, state: str) -> None:
    blocking = violations(driver)
    assert not blocking, f"{state}: " + json.dumps(blocking, indent=1)


def type_program(driver: Any, content: Any, lines: list[str]) -> None:
    from selenium.webdriver.common.keys import Keys

    content.click()
    content.send_keys(Keys.CONTROL, "a")
    content.send_keys(Keys.DELETE)
    for index, line in enumerate(lines):
        content.send_keys(line)
        if index < len(lines) - 1:
            content.send_keys(Keys.ENTER)


def active(driver: Any) -> Any:
    return driver.switch_to.active_element


def test_the_lesson_has_no_serious_accessibility_problem_in_any_state(
    live: LiveServer, driver: Any, artifacts: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.set_window_size(1280, 900)
    open_lesson(driver, live.url)
    timing = driver.execute_script(
        "const paint = performance.getEntriesByName('first-contentful-paint')[0];"
        "const nav = performance.getEntriesByType('navigation')[0];"
        "const parts = [nav, ...performance.getEntriesByType('resource')];"
        "return {paint: paint ? paint.startTime : null, ready: window.__menaceReadyAt,"
        " transferred: parts.reduce((s, e) => s + (e.transferSize || 0), 0),"
        " decoded: parts.reduce((s, e) => s + (e.decodedBodySize || 0), 0)};"
    )
    print(
        f"\nlesson page: first contentful paint {timing['paint']:.0f} ms, widget ready "
        f"{timing['ready'] or float('nan'):.0f} ms, {timing['transferred'] / 1024:.0f} KiB transferred "
        f"({timing['decoded'] / 1024:.0f} KiB uncompressed); measured, not asserted"
    )
    assert_accessible(driver, "the lesson as loaded")

    driver.find_element(By.ID, "play-hundred").click()
    wait(driver, lambda d: "100 games played" in d.find_element(By.ID, "tallies").text and idle(d))
    driver.find_element(By.ID, "show-boxes").click()
    wait(driver, idle)
    assert_accessible(driver, "after 100 games, with the boxes shown")

    Select(driver.find_element(By.ID, "opponent")).select_by_visible_text("You")
    driver.find_element(By.ID, "play-one").click()
    wait(driver, lambda d: widget(d).get_attribute("data-state") == "your-turn" and idle(d))
    assert_accessible(driver, "the student's turn against MENACE")

    article = driver.find_element(By.ID, "challenge-after_game")
    type_program(driver, article.find_element(By.CSS_SELECTOR, ".cm-content"), NO_FLOOR)
    article.find_element(By.CSS_SELECTOR, "button.check").click()
    wait(driver, lambda d: article.find_elements(By.CSS_SELECTOR, ".check-output iframe.feedback"), 120)
    verdict = article.find_element(By.CSS_SELECTOR, ".check-output .verdict").text
    assert "checks pass" in verdict
    driver.execute_script("arguments[0].scrollIntoView()", article)
    driver.save_screenshot(str(artifacts / "a11y_challenge_checked.png"))
    assert_accessible(driver, "a challenge checked")


def test_the_challenge_page_has_no_serious_accessibility_problem(live: LiveServer, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    driver.set_window_size(1280, 900)
    driver.get(live.url + "/c/after_game")
    content = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".cm-content"))[0]
    assert_accessible(driver, "the challenge page as loaded")
    type_program(driver, content, NO_FLOOR)
    driver.find_element(By.ID, "check-button").click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#feedback iframe.feedback"), 120)
    assert_accessible(driver, "the challenge page after a check")


def test_a_whole_game_against_menace_is_played_with_the_keyboard_alone(live: LiveServer, driver: Any) -> None:
    """Arrows walk past taken squares to the next free one; Enter plays; when the game ends
    the focus stays where the keyboard was (the board or Play 1 game), never the page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.set_window_size(1280, 900)
    open_lesson(driver, live.url)
    driver.find_element(By.ID, "opponent").send_keys("You")
    for _ in range(2):
        play = driver.find_element(By.ID, "play-one")
        if active(driver) != play:  # the first game: where Tab from the opponent's menu goes
            driver.execute_script("arguments[0].focus()", play)
        active(driver).send_keys(Keys.ENTER)
        moves = 0
        while True:
            wait(driver, lambda d: widget(d).get_attribute("data-state") in ("your-turn", "over") and idle(d))
            if widget(driver).get_attribute("data-state") == "over":
                break
            square = active(driver)
            assert "square" in (square.get_attribute("class") or ""), square.get_attribute("outerHTML")[:200]
            free = sorted(
                int(b.get_attribute("data-square"))
                for b in driver.find_elements(By.CSS_SELECTOR, "#board .square")
                if b.is_enabled()
            )
            start = int(square.get_attribute("data-square"))
            active(driver).send_keys(Keys.ARROW_RIGHT)
            later = [s for s in free if s > start]
            arrived = int(active(driver).get_attribute("data-square"))
            assert arrived == (later[0] if later else start), (
                f"Right from square {start} must go past taken squares to {later[:1]}, not {arrived}"
            )
            assert active(driver).is_enabled()
            active(driver).send_keys(Keys.ENTER)
            moves += 1
        assert moves >= 2
        focused = active(driver)
        assert focused.tag_name != "body", "the focus fell to the page when the game ended"
        assert widget(driver).find_elements(By.CSS_SELECTOR, ":focus"), (
            "after the game the focus stays in the widget: "
            + (focused.get_attribute("outerHTML") or "")[:200]
        )
    assert "2 games played" in driver.find_element(By.ID, "tallies").text


def test_an_editor_says_how_to_leave_it_and_escape_then_tab_does(live: LiveServer, driver: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.set_window_size(1280, 900)
    open_lesson(driver, live.url)
    article = driver.find_element(By.ID, "challenge-count_boxes")
    content = article.find_element(By.CSS_SELECTOR, ".cm-content")
    hint_id = content.get_attribute("aria-describedby")
    assert hint_id, "the editor is described by a note on its keys"
    hint = driver.find_element(By.ID, hint_id.split()[0])
    assert hint.is_displayed() and "Escape" in hint.text and "Tab" in hint.text, hint.text
    content.click()
    content.send_keys(Keys.CONTROL, Keys.END)
    content.send_keys(Keys.ENTER, Keys.TAB)
    assert active(driver) == content, "Tab in the editor indents, as Python needs"
    content.send_keys(Keys.ESCAPE)
    active(driver).send_keys(Keys.TAB)
    assert active(driver) != content, "Escape then Tab leaves the editor"
    assert not article.find_element(By.CSS_SELECTOR, ".cm-editor").find_elements(By.CSS_SELECTOR, ":focus")

    for program in driver.find_elements(By.CSS_SELECTOR, "article.program .cm-editor"):
        shown = program.find_element(By.CSS_SELECTOR, ".cm-content")
        assert shown.get_attribute("tabindex") == "0", (
            "a read-only program can be focused, so scrolled by keys"
        )


def test_at_a_phones_size_labels_are_readable_and_nothing_is_cut_off(
    live: LiveServer, driver: Any, artifacts: Path
) -> None:
    from selenium.webdriver.common.by import By

    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        open_lesson(driver, live.url)
        driver.find_element(By.ID, "play-one").click()
        wait(driver, lambda d: widget(d).get_attribute("data-state") == "over" and idle(d))
        driver.execute_script("document.getElementById('widget').scrollIntoView()")
        driver.save_screenshot(str(artifacts / "phone_widget.png"))
        driver.find_element(By.ID, "play-hundred").click()
        wait(driver, lambda d: "101 games played" in d.find_element(By.ID, "tallies").text and idle(d))
        sizes = driver.execute_script(
            "return [...document.querySelectorAll('#chart svg text')]"
            ".map((t) => t.getBoundingClientRect().height)"
        )
        assert sizes and min(sizes) >= 10, f"the chart's labels are {min(sizes):.1f} px high on a phone"
        driver.execute_script("document.getElementById('chart').scrollIntoView()")
        driver.save_screenshot(str(artifacts / "phone_chart.png"))

        board = driver.find_element(By.ID, "board").rect
        cards = driver.find_element(By.CSS_SELECTOR, ".cards-area").rect
        assert board["width"] <= 390 and cards["width"] <= 390
        widget_box = widget(driver).rect
        gap = cards["y"] - (board["y"] + board["height"])
        assert gap >= 0, "on a phone the cards come after the board"
        assert gap < 250, f"…right after it and its buttons, not {gap:.0f} px below"
        assert widget_box["x"] >= 0 and widget_box["x"] + widget_box["width"] <= 391

        article = driver.find_element(By.ID, "step3")
        article.find_element(By.CSS_SELECTOR, "button.run").click()
        printed = wait(driver, lambda d: article.find_elements(By.CSS_SELECTOR, "pre.printed"), 120)[0]
        fits = driver.execute_script(
            "return arguments[0].scrollWidth <= arguments[0].clientWidth + 1", printed
        )
        assert fits, "a printed line is cut off on a phone"
        # The picture's losses (firebrick) carry a cross too, so they do not rest on colour alone.
        losses = article.find_elements(By.CSS_SELECTOR, ".picture rect[fill='#b22222']")
        crosses = article.find_elements(By.CSS_SELECTOR, ".picture path.cue-loss")
        assert losses and len(crosses) == len(losses)
        legend = article.find_element(By.CSS_SELECTOR, ".picture-legend").text
        assert "a loss: firebrick, with a cross" in legend and "a draw" in legend
        driver.execute_script("arguments[0].scrollIntoView()", printed)
        driver.save_screenshot(str(artifacts / "phone_printed.png"))
        wide = driver.execute_script("return document.documentElement.scrollWidth")
        assert wide <= 391, f"the page is {wide} px wide on a 390 px screen"
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
