"""The experiments' progress bar: on a terminal only, and on standard error."""

from __future__ import annotations

import io
import sys

import pytest

from menace_course.lesson.experiments.progress import progress_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_bar_when_standard_error_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_bar(3, "runs") as tick:
        for _ in range(3):
            tick()
    assert capsys.readouterr() == ("", "")


def test_a_bar_on_a_terminal_goes_to_standard_error(monkeypatch: pytest.MonkeyPatch) -> None:
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    with progress_bar(3, "runs") as tick:
        for _ in range(3):
            tick()
    assert "runs" in err.getvalue()
