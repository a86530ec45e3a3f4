"""The distributed form of the check service, for real: a PostgreSQL database of its own per
test, a real ``menace serve --queue procrastinate`` process and real ``menace worker``
processes on 127.0.0.1, killed with SIGKILL where a test says so.

Every test here needs PostgreSQL (``MENACE_TEST_POSTGRES_URL``): skipped where it is unset,
a failure under CI, which must run them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.service.support import postgres_database


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/scale/" in str(item.path).replace(os.sep, "/"):
            item.add_marker(pytest.mark.postgres)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database, dropped afterwards."""
    if not os.environ.get("MENACE_TEST_POSTGRES_URL"):
        if os.environ.get("CI"):
            pytest.fail("CI must run the PostgreSQL tests: set MENACE_TEST_POSTGRES_URL")
        pytest.skip("MENACE_TEST_POSTGRES_URL is not set")
    with postgres_database() as url:
        yield url
