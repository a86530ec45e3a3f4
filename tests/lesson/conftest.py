"""Fixtures for the lesson's tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from lesson_support import Ran

from menace_course.cli import main


@pytest.fixture
def menace(capsys: pytest.CaptureFixture[str]) -> Callable[..., Ran]:
    """Run ``menace ARGS`` in this process, as the console script does."""

    def run(*args: str) -> Ran:
        with pytest.raises(SystemExit) as done:
            main(list(args))
        out, err = capsys.readouterr()
        return Ran(done.value.code, out, err)

    return run
