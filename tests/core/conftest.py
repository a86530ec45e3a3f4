"""Fixtures shared by the core tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A grader's cache folder of this test's own, not made yet (``MENACE_CACHE_DIR``)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("MENACE_CACHE_DIR", str(root))
    return root
