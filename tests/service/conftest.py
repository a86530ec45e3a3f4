"""The check service, for real: a real database (SQLite and PostgreSQL), real grader
processes, and for end-to-end tests a real ``menace serve`` process on 127.0.0.1.

Tests marked ``postgres`` need ``MENACE_TEST_POSTGRES_URL`` (e.g. ``postgresql:///postgres``):
each creates and drops its own database there. They are skipped where it is unset and
fail under CI, which must run them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lesson_page.conftest import driver  # noqa: F401  (headless Chromium, as the lesson's tests have it)
from tests.lesson_page.conftest import pytest_runtest_setup as browser_setup
from tests.service.support import LiveService, make_app, postgres_database, require_postgres, stop_app
from tests.support import REPO


def pytest_runtest_setup(item: pytest.Item) -> None:
    browser_setup(item)  # browser tests: skipped without Chromium, required under CI
    if item.get_closest_marker("postgres") is not None:
        require_postgres()


DATABASES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=DATABASES)
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A fresh, empty database: an SQLite file, or a PostgreSQL database of its own."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'service.sqlite3'}"
        return
    with postgres_database() as url:
        yield url


@pytest.fixture(scope="module", params=DATABASES)
def service_app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A running service app (one warm grader process) over a fresh database, per module."""
    if request.param == "sqlite":
        app = make_app(f"sqlite:///{tmp_path_factory.mktemp('db') / 'service.sqlite3'}")
        try:
            yield app
        finally:
            stop_app(app)
        return
    if not os.environ.get("MENACE_TEST_POSTGRES_URL"):
        if os.environ.get("CI"):
            pytest.fail("CI must run the PostgreSQL tests: set MENACE_TEST_POSTGRES_URL")
        pytest.skip("MENACE_TEST_POSTGRES_URL is not set")
    with postgres_database() as url:
        app = make_app(url)
        try:
            yield app
        finally:
            stop_app(app)


@pytest.fixture
def client(service_app: Any) -> Any:
    """A test client of the module's service app (a fresh cookie jar each test)."""
    return service_app.test_client()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where the browser tests' screenshots are kept after the run."""
    folder = Path(os.environ.get("MENACE_ARTIFACTS") or REPO / "tests" / "artifacts") / "service"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def live(tmp_path: Path, db_url: str) -> Iterator[LiveService]:
    """A real ``menace serve`` process on 127.0.0.1, on the test's database, stopped afterwards."""
    service = LiveService(tmp_path, db_url).start()
    try:
        yield service
    finally:
        service.stop()
