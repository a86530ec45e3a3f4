"""The whole LTI flow in headless Chromium: the LMS's forms post themselves, a student checks,
the LMS's gradebook shows the score.

An instructor adds the activity (deep linking: the LMS launches the tool, the instructor
picks after_game, the tool's signed answer posts itself back); a student opens it from the
course page (the LMS's launch form posts itself to the tool), lands on the challenge signed
in, types a solution into the editor, presses Check my program, reads the feedback; the
LMS's page then shows the score its grade service received.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lti.conftest import Service
from tests.lti.lms import RunningPlatform
from tests.support import REPO

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    """Headless Chromium from Debian with a fresh profile (skipped where absent, required under CI)."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser tests: install chromium and chromium-driver")
        pytest.skip("headless Chromium is not installed here")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    profile = tempfile.mkdtemp(prefix="menace-lti-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=DriverService(str(CHROMEDRIVER)), options=options)
    browser.set_page_load_timeout(30)
    try:
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def artifacts() -> Path:
    folder = Path(os.environ.get("MENACE_ARTIFACTS") or REPO / "tests" / "artifacts") / "lti"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def wait_until(driver: Any, condition: Any, seconds: float = 30) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.2).until(condition)


def test_a_student_launched_from_the_lms_checks_in_the_browser_and_the_lms_gets_the_score(
    driver: Any, service: Service, lms: RunningPlatform, artifacts: Path
) -> None:
    from selenium.webdriver.common.by import By

    driver.get(lms.url + "/")
    links_before = set(lms.state.links)
    driver.find_element(By.XPATH, "//a[contains(., 'Add a MENACE activity as Ines Ide')]").click()
    wait_until(
        driver, lambda d: d.current_url.startswith(service.url) and "Add a MENACE challenge" in d.page_source
    )
    driver.save_screenshot(str(artifacts / "1-picker.png"))
    driver.find_element(By.ID, "pick-after_game").click()
    wait_until(driver, lambda d: d.current_url.rstrip("/") == lms.url and set(lms.state.links) - links_before)
    (link_id,) = set(lms.state.links) - links_before

    driver.find_element(By.CSS_SELECTOR, f"a.launch[data-user='alice'][href*='link={link_id}']").click()
    wait_until(driver, lambda d: d.current_url == f"{service.url}/c/after_game")
    assert "Alice Liddell" in driver.page_source
    source = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")
    driver.execute_script(
        """
        const area = document.querySelector('textarea[name=source]');
        const editor = window.MenaceEditor && window.MenaceEditor.get(area);
        if (editor) { editor.setValue(arguments[0]); } else { area.value = arguments[0]; }
        """,
        source,
    )
    driver.save_screenshot(str(artifacts / "2-challenge.png"))
    button = driver.find_element(By.XPATH, "//button[contains(., 'Check my program')]")
    button.click()
    wait_until(driver, lambda d: "attempt=" in d.current_url or "15/15" in d.page_source, seconds=60)
    driver.save_screenshot(str(artifacts / "3-feedback.png"))

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        driver.get(lms.url + "/")
        cells = driver.find_elements(
            By.CSS_SELECTOR, f"table.gradebook[data-link='{link_id}'] tr[data-user='alice'] td.score"
        )
        if cells and cells[0].text == "15":
            break
        time.sleep(0.5)
    driver.save_screenshot(str(artifacts / "4-gradebook.png"))
    assert cells and cells[0].text == "15"
