"""The distributed form of the check service, for real: a PostgreSQL database of its own per
test, a real ``menace serve --queue procrastinate`` process and real ``menace worker``
processes on 127.0.0.1, killed with SIGKILL where a test says so.

Every test here needs PostgreSQL (``MENACE_TEST_POSTGRES_URL``): skipped where it is unset,
a failure under CI, which must run them.
"""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/scale/" in str(item.path).replace(os.sep, "/"):
            item.add_marker(pytest.mark.postgres)
