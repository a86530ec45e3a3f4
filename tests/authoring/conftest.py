"""Fixtures for the authoring tests: a private copy of the course (``menace`` is in tests/conftest.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support import Ran  # noqa: F401  (the tests import it from here)

REPO = Path(__file__).resolve().parents[2]
COURSE_PARTS = ("challenges", "hidden_tests", "reference", "feedback_templates")


@pytest.fixture(scope="session")
def example_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the replayed hypothesis examples of every test here (not the user's cache)."""
    return tmp_path_factory.mktemp("examples")


@pytest.fixture
def course(tmp_path: Path, example_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the course (challenges, hidden tests, references, templates) to change freely."""
    root = tmp_path / "course"
    for part in COURSE_PARTS:
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("MENACE_CACHE_DIR", str(example_cache))
    return root
