"""The lesson page inside the real service (``create_app``): CSRF, the course, the checks.

A challenge on /lesson is checked through the service's own API, as on /c/<slug>: a
browser types an answer without the floor at 0, presses Check my program, and reads the
failing hidden test by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("menace_course.service.app")

from tests.lesson_page.live import LiveServer

NO_FLOOR = (
    "def after_game(beads, square, result):\n"
    "    new = list(beads)\n"
    "    new[square] += {'win': 3, 'draw': 1, 'loss': -1}[result]\n"
    "    return new\n"
)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.service.support import make_app, stop_app

    app = make_app(f"sqlite:///{tmp_path_factory.mktemp('lesson-db') / 'service.sqlite3'}", open=True)
    try:
        yield app
    finally:
        stop_app(app)


def token_of(page: str) -> str:
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', page)
    assert found, "the page carries its CSRF token for the widget's requests"
    return found.group(1)


def test_the_service_serves_the_lesson_with_its_challenges_and_programs(service: Any) -> None:
    client = service.test_client()
    page = client.get("/lesson").get_data(as_text=True)
    for slug in ("after_game", "count_boxes", "opening_box"):
        assert f'data-challenge="{slug}"' in page
    for step in (1, 2, 3, 4):
        assert f'id="step{step}"' in page
    assert "/static/dist/lesson.js" in page and "/static/dist/editor.js" in page
    assert client.get("/static/dist/lesson.js").status_code == 200


def test_the_widget_answers_only_with_the_pages_csrf_token(service: Any) -> None:
    client = service.test_client()
    token = token_of(client.get("/lesson").get_data(as_text=True))
    body = {"seed": 1, "log": [], "action": {"type": "games", "count": 3, "opponent": "perfect"}}
    assert client.post("/lesson/api/widget", json=body).status_code == 400
    answer = client.post("/lesson/api/widget", json=body, headers={"X-CSRFToken": token})
    assert answer.status_code == 200 and answer.json["tallies"]["played"] == 3


def test_the_lesson_shows_no_reference_code_or_hidden_test(service: Any) -> None:
    from tests.support import REPO

    page = service.test_client().get("/lesson").get_data(as_text=True)
    reference = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")
    body = [line.strip() for line in reference.splitlines() if "max(0" in line]
    assert body and all(line not in page for line in body)
    assert "hidden_tests" not in page
    assert "<table>" in page  # the challenge texts' tables are rendered, not shown as pipes


@pytest.mark.browser
@pytest.mark.slow
def test_a_challenge_is_checked_in_place_with_the_hidden_tests_named(
    service: Any, driver: Any, artifacts: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    live = LiveServer(service)
    try:
        driver.get(live.url + "/lesson")
        article = driver.find_element(By.ID, "challenge-after_game")
        WebDriverWait(driver, 20).until(lambda d: article.find_elements(By.CSS_SELECTOR, ".cm-content"))
        driver.execute_script("MenaceEditor.get('after_game-source').setValue(arguments[0])", NO_FLOOR)
        article.find_element(By.CSS_SELECTOR, "button.check").click()
        frame = WebDriverWait(driver, 60).until(
            lambda d: article.find_elements(By.CSS_SELECTOR, "iframe.feedback")
        )[0]
        verdict = article.find_element(By.CSS_SELECTOR, ".verdict").text
        assert "checks pass" in verdict and not verdict.startswith("✓")
        output = article.find_element(By.CSS_SELECTOR, ".check-output")
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", output)
        driver.save_screenshot(str(artifacts / "10_challenge_checked.png"))
        driver.switch_to.frame(frame)
        text = driver.find_element(By.TAG_NAME, "body").text
        driver.switch_to.default_content()
        assert "A loss on a square that has no beads left keeps it at 0" in text
    finally:
        live.close()
