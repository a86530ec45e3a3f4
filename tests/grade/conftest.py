"""Fixtures for the tests of ``menace grade`` and ``menace export``.

The helpers they use live in ``grade_support.py``. (The ``bwrap`` marker's rule, skip where
bubblewrap cannot run but fail under CI, is in the top-level ``tests/conftest.py``.)
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from grade_support import REPO


@pytest.fixture
def course_copy(tmp_path: Path) -> Callable[[], Path]:
    """A private copy of the course (after_game only), for tests that change its tests."""

    def copy() -> Path:
        root = tmp_path / "course"
        shutil.copytree(REPO / "challenges" / "after_game", root / "challenges" / "after_game")
        shutil.copytree(REPO / "hidden_tests" / "after_game", root / "hidden_tests" / "after_game")
        shutil.copytree(REPO / "feedback_templates", root / "feedback_templates")
        (root / "reference").mkdir()
        shutil.copy(REPO / "reference" / "after_game.py", root / "reference" / "after_game.py")
        return root

    return copy
