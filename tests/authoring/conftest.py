"""Fixtures for the authoring tests: a private copy of the course (``menace`` is in tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import Ran, copy_course  # noqa: F401  (the tests import Ran from here)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def example_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the replayed hypothesis examples of every test here (not the user's cache)."""
    return tmp_path_factory.mktemp("examples")


@pytest.fixture
def course(tmp_path: Path, example_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the course (challenges, hidden tests, references, templates) to change freely."""
    root = copy_course(tmp_path / "course")
    monkeypatch.setenv("MENACE_CACHE_DIR", str(example_cache))
    return root
