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


def test_a_student_types_a_wrong_answer_and_reads_the_failing_hidden_test(
    tmp_path: Path, driver: Any, artifacts: Path, db_url: str
) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    assert menace("users", "add", "alice", "--db", db_url).returncode == 0
    live = LiveService(tmp_path, db_url).start()
    try:
        link = menace("users", "link", "alice", "--url", live.url, "--db", db_url).stdout.split()[1]
        driver.get(link)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        # the header read may belong to the page being left (stale): read it again, on the new one
        WebDriverWait(driver, 20, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: "alice" in d.find_element(By.CSS_SELECTOR, "header").text
        )

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
