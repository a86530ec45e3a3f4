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


def test_the_trained_board_answers_only_with_the_pages_csrf_token_and_is_rate_limited(service: Any) -> None:
    from menace_course.service.app import PLAYS_IN_PROCESS

    client = service.test_client()
    token = token_of(client.get("/lesson").get_data(as_text=True))
    body = {"game": 1, "moves": []}
    assert client.post("/lesson/api/trained", json=body).status_code == 400
    answer = client.post("/lesson/api/trained", json=body, headers={"X-CSRFToken": token})
    assert answer.status_code == 200 and answer.json["board"] == "    X    "
    assert "lesson.trained" in PLAYS_IN_PROCESS
    codes = [
        client.post(
            "/lesson/api/trained",
            json=body,
            headers={"X-CSRFToken": token},
            environ_base={"REMOTE_ADDR": "198.51.100.90"},
        ).status_code
        for _ in range(125)
    ]
    assert codes[0] == 200 and codes[-1] == 429, codes  # held to the widget's 120 requests a minute


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


@pytest.fixture(scope="module")
def signed_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The service as ``menace serve`` starts it by default: checks need a signed-in student."""
    from tests.service.support import make_app, stop_app

    app = make_app(f"sqlite:///{tmp_path_factory.mktemp('lesson-signed') / 'service.sqlite3'}")
    try:
        yield app
    finally:
        stop_app(app)


def test_the_lesson_asks_an_anonymous_visitor_to_sign_in_before_checking(signed_service: Any) -> None:
    page = signed_service.test_client().get("/lesson").get_data(as_text=True)
    assert 'data-sign-in="/login"' in page
    assert 'href="/login?next=/lesson%23challenges">sign in</a>' in page


@pytest.mark.browser
@pytest.mark.slow
def test_a_student_signs_in_from_the_lesson_and_checks_each_challenge_in_place(
    signed_service: Any, driver: Any, artifacts: Path
) -> None:
    """Check my program before signing in says how to sign in (no 'unauthorized'); the program
    typed survives the sign-in; then each of the three challenges is checked on the page,
    and each check is the student's attempt in the service, as on /c/<slug>."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    from sqlalchemy import select

    from menace_course.service.db.tables import Attempt
    from tests.service.support import add_user
    from tests.support import REPO

    user_id, token = add_user(signed_service, "Ada Lovelace")
    live = LiveServer(signed_service)
    try:
        driver.get(live.url + "/lesson")
        driver.delete_all_cookies()
        driver.get(live.url + "/lesson")
        article = driver.find_element(By.ID, "challenge-after_game")
        WebDriverWait(driver, 20).until(lambda d: article.find_elements(By.CSS_SELECTOR, ".cm-content"))
        assert "sign in" in driver.find_element(By.ID, "sign-in-note").text
        right = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")
        driver.execute_script("MenaceEditor.get('after_game-source').setValue(arguments[0])", right)
        article.find_element(By.CSS_SELECTOR, "button.check").click()
        alert = WebDriverWait(driver, 30).until(lambda d: article.find_elements(By.CSS_SELECTOR, ".sign-in"))[
            0
        ]
        assert "Sign in first" in alert.text and "unauthorized" not in alert.text
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", alert)
        driver.save_screenshot(str(artifacts / "12_sign_in_first.png"))

        alert.find_element(By.LINK_TEXT, "Sign in").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "token"))
        driver.find_element(By.ID, "token").send_keys(token)
        driver.find_element(By.CSS_SELECTOR, "form.login button").click()
        WebDriverWait(driver, 20).until(
            lambda d: "/lesson" in d.current_url and d.find_elements(By.ID, "widget")
        )
        assert "Signed in as Ada Lovelace" in driver.find_element(By.ID, "challenges").text
        WebDriverWait(driver, 20).until(
            lambda d: d.execute_script("return MenaceEditor.get('after_game-source').getValue()") == right
        )

        for slug in ("after_game", "count_boxes", "opening_box"):
            article = driver.find_element(By.ID, f"challenge-{slug}")
            source = (REPO / "reference" / f"{slug}.py").read_text(encoding="utf-8")
            driver.execute_script(f"MenaceEditor.get('{slug}-source').setValue(arguments[0])", source)
            article.find_element(By.CSS_SELECTOR, "button.check").click()
            verdict = WebDriverWait(driver, 90).until(
                lambda d, a=article: a.find_elements(By.CSS_SELECTOR, ".verdict")
            )[0]
            assert verdict.text.startswith("✓ All"), (slug, verdict.text)
        output = driver.find_element(By.CSS_SELECTOR, "#challenge-opening_box .check-output")
        driver.execute_script(
            "arguments[0].scrollIntoView({block: 'start'}); window.scrollBy(0, -160)", output
        )
        driver.save_screenshot(str(artifacts / "13_three_challenges_checked.png"))
    finally:
        live.close()
    with signed_service.extensions["menace"].db.reading() as db:
        attempts = list(db.scalars(select(Attempt).where(Attempt.user_id == user_id)))
    assert sorted(a.challenge for a in attempts) == ["after_game", "count_boxes", "opening_box"]
    assert all(a.score is not None and a.score == a.max_score for a in attempts)
