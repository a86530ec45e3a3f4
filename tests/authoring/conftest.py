"""Fixtures for the authoring tests: a private copy of the course, and ``menace`` run in-process."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from menace_course.cli import main

REPO = Path(__file__).resolve().parents[2]
COURSE_PARTS = ("challenges", "hidden_tests", "reference", "feedback_templates")


@dataclass(frozen=True)
class Ran:
    """What one ``menace`` command did."""

    code: int | str | None
    out: str
    err: str

    def json(self) -> dict:
        return json.loads(self.out)


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


@pytest.fixture
def menace(capsys: pytest.CaptureFixture[str]) -> Callable[..., Ran]:
    """Run ``menace ARGS`` in this process, as the console script does."""

    def run(*args: str) -> Ran:
        with pytest.raises(SystemExit) as done:
            main(list(args))
        out, err = capsys.readouterr()
        return Ran(done.value.code, out, err)

    return run
