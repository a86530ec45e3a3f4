"""A real browser and a real HTTP server for the lesson page's tests.

Tests marked ``browser`` drive Debian's headless Chromium through Selenium. Where Chromium
or its driver is missing they are skipped, except under CI (``CI`` set), where that is an
install problem and the test fails. Screenshots go to ``tests/artifacts/`` (gitignored),
or to ``$MENACE_ARTIFACTS``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import REPO

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("browser") is None:
        return
    if CHROMIUM.exists() and CHROMEDRIVER.exists():
        try:
            import selenium  # noqa: F401
        except ImportError:
            pass
        else:
            return
    if os.environ.get("CI"):
        pytest.fail("CI must run the browser tests: install chromium, chromium-driver and selenium")
    pytest.skip("headless Chromium (or selenium) is not installed here")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots are kept after the run."""
    folder = Path(os.environ.get("MENACE_ARTIFACTS") or REPO / "tests" / "artifacts") / "lesson_page"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    """Headless Chromium from Debian, with a fresh profile, at a laptop's window size."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="menace-chromium-")
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
        "--force-device-scale-factor=1",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    browser.set_page_load_timeout(30)
    try:
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)
