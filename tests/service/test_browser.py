"""The challenge page in a real browser (Debian's headless Chromium) against a real ``menace serve``:
sign in with a one-time link, type a wrong answer into the editor, press Check my program,
read the failing hidden test's name and hint, reload and find the code and the attempt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import check_json
from tests.service.support import LiveService, menace

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: after_game without the floor at 0: the examples pass, a hidden test does not.
NO_FLOOR_LINES = [
    "def after_game(beads, square, result):",
    "new = list(beads)",
    "new[square] += {'win': 3, 'draw': 1, 'loss': -1}[result]",
    "return new",
]


def _type_into_editor(driver: Any, lines: list[str]) -> None:
    """Type as a student does: select everything, then type line by line (the editor indents)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    editor = WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".cm-content"))[0]
    editor.click()
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.DELETE)
    for index, line in enumerate(lines):
        editor.send_keys(line)
        if index < len(lines) - 1:
            editor.send_keys(Keys.ENTER)


def _sign_in(driver: Any, live: LiveService, db_url: str, name: str) -> None:
    """Open the one-time link ``menace users link`` makes, and press its button."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    link = menace("users", "link", name, "--url", live.url, "--db", db_url).stdout.split()[1]
    driver.get(link)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    # the header read may belong to the page being left (stale): read it again, on the new one
    WebDriverWait(driver, 20, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: name in d.find_element(By.CSS_SELECTOR, "header").text
    )


def test_a_student_types_a_wrong_answer_and_reads_the_failing_hidden_test(
    tmp_path: Path, driver: Any, artifacts: Path, db_url: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    assert menace("users", "add", "alice", "--db", db_url).returncode == 0
    live = LiveService(tmp_path, db_url).start()
    try:
        _sign_in(driver, live, db_url, "alice")

        driver.get(live.url + "/c/after_game")
        _type_into_editor(driver, NO_FLOOR_LINES)
        typed = driver.execute_script("return document.querySelector('textarea[name=source]').value")
        assert typed.splitlines() == [
            "def after_game(beads, square, result):",
            "    new = list(beads)",
            "    new[square] += {'win': 3, 'draw': 1, 'loss': -1}[result]",
            "    return new",
        ]
        driver.find_element(By.ID, "check-button").click()
        frame = WebDriverWait(driver, 60).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "#feedback iframe.feedback")
        )[0]
        driver.save_screenshot(str(artifacts / "challenge_checked.png"))
        driver.switch_to.frame(frame)
        text = WebDriverWait(driver, 20).until(
            lambda d: d.find_element(By.TAG_NAME, "body").text if "More checks" in d.page_source else None
        )
        driver.switch_to.default_content()
        assert "A loss on a square that has no beads left keeps it at 0" in text
        assert "A count never goes below 0" in text  # its hint

        driver.refresh()
        code = driver.execute_script("return document.querySelector('textarea[name=source]').value")
        assert "{'win': 3, 'draw': 1, 'loss': -1}" in code
        attempts = driver.find_element(By.ID, "attempts").text
        answer = tmp_path / "after_game.py"
        answer.write_text(typed)
        _, local = check_json(answer, "--challenge", "after_game")
        assert local["score"] < local["max_score"]
        assert f"{local['score']:g} / {local['max_score']:g}" in attempts  # as menace check scores it
    finally:
        live.stop()


def test_a_student_reading_the_page_in_chinese_is_told_in_chinese_while_the_check_runs(
    tmp_path: Path, driver: Any, db_url: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    assert menace("users", "add", "mei", "--db", db_url).returncode == 0
    live = LiveService(tmp_path, db_url).start()
    try:
        _sign_in(driver, live, db_url, "mei")
        driver.get(live.url + "/c/after_game?lang=zh_TW")  # the language chosen on the page
        _type_into_editor(driver, NO_FLOOR_LINES)
        # a first check, so that the page has its "your attempts" table, where the next one is added
        driver.find_element(By.ID, "check-button").click()
        frame = "#feedback iframe.feedback"
        WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, frame))
        driver.refresh()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#attempts tbody tr"))
        # every line the status says, as it says it (it is cleared when the feedback is shown)
        driver.execute_script(
            "const s = document.getElementById('check-status'); window.said = [];"
            "new MutationObserver(() => window.said.push(s.textContent))"
            ".observe(s, {childList: true, characterData: true, subtree: true});"
        )
        driver.find_element(By.ID, "check-button").click()
        rows = "#attempts tbody tr"
        WebDriverWait(driver, 60).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, rows)) == 2)
        said = [line for line in driver.execute_script("return window.said") if line]
        assert said and said[0] == "檢查中…"
        assert not [line for line in said if "Checking" in line or "checks pass" in line]
        links = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#attempts tbody tr:first-child a")]
        assert links == ["回饋", "程式碼"]
    finally:
        live.stop()
