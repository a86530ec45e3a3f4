"""The editor bundle keeps the page's contract, in a real browser.

A ``<textarea name="source" data-editor="python">`` in a ``<form>`` becomes a CodeMirror
editor; what the student types there is what the form posts, and what
``MenaceEditor.get(...).getValue()`` gives a page that submits with fetch().
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.lesson_page.live import LiveServer

flask = pytest.importorskip("flask")

STATIC = "menace_course/service/static"
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>editor</title>
<script src="/static/dist/editor.js" defer></script></head><body>
<form method="post" action="/echo">
  <label for="source">Your program</label>
  <textarea id="source" name="source" data-editor="python" rows="6">def after_game(beads, square, result):
    return beads
</textarea>
  <button type="submit">Check my program</button>
</form></body></html>"""


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    from tests.support import REPO

    app = flask.Flask("editor_test", static_folder=str(REPO / STATIC), static_url_path="/static")

    @app.get("/")
    def page() -> str:
        return PAGE

    @app.post("/echo")
    def echo() -> Any:
        return flask.Response(flask.request.form["source"], mimetype="text/plain")

    live = LiveServer(app)
    yield live
    live.close()


@pytest.mark.browser
def test_what_is_typed_in_the_editor_is_what_the_form_posts(server: LiveServer, driver: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(server.url + "/")
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".cm-content"))
    textarea = driver.find_element(By.ID, "source")
    assert not textarea.is_displayed()
    content = driver.find_element(By.CSS_SELECTOR, ".cm-content")
    assert content.get_attribute("aria-labelledby") == "source-label"
    content.click()
    content.send_keys(Keys.CONTROL, "a")
    content.send_keys("def after_game(beads, square, result):\n")
    content.send_keys("return list(beads)")
    typed = driver.execute_script("return MenaceEditor.get('source').getValue()")
    assert typed == "def after_game(beads, square, result):\n    return list(beads)"
    assert driver.execute_script("return document.getElementById('source').value") == typed
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(driver, 10).until(lambda d: "/echo" in d.current_url)
    assert driver.find_element(By.TAG_NAME, "body").text == typed


@pytest.mark.browser
def test_set_value_from_a_script_reaches_the_form(server: LiveServer, driver: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(server.url + "/")
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".cm-content"))
    driver.execute_script("MenaceEditor.get('source').setValue('print(1)\\n')")
    assert driver.execute_script("return document.getElementById('source').value") == "print(1)\n"
    assert "print(1)" in driver.find_element(By.CSS_SELECTOR, ".cm-content").text
