"""``menace grade --feedback-lang``: the students' feedback files are in the language the
instructor names, never in whatever language the grading machine happens to run in."""

from __future__ import annotations

from pathlib import Path

import pytest
from grade_support import NO_FLOOR, Menace, write

NO_SANDBOX = ("--sandbox", "process", "--i-accept-no-sandbox")


def grade(menace: Menace, tmp_path: Path, *extra: str) -> tuple[int, str, Path]:
    submissions = write(tmp_path / "submissions", {"bo.py": NO_FLOOR})
    out = tmp_path / "out"
    ran = menace("grade", submissions, "--challenge", "after_game", "--out", out, *NO_SANDBOX, *extra)
    return ran.code, ran.err, out


def test_feedback_files_are_in_the_language_the_instructor_names(tmp_path: Path, menace: Menace) -> None:
    code, err, out = grade(menace, tmp_path, "--feedback-lang", "zh_TW")
    assert code == 0, err
    feedback = (out / "feedback" / "bo.md").read_text(encoding="utf-8")
    assert "題目的範例" in feedback  # "the challenge's examples", in Traditional Chinese
    assert "Examples from the challenge" not in feedback


def test_feedback_files_are_english_whatever_the_grading_machines_lang(
    tmp_path: Path, menace: Menace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "zh_TW.UTF-8")
    monkeypatch.setenv("LC_ALL", "zh_TW.UTF-8")
    code, err, out = grade(menace, tmp_path)
    assert code == 0, err
    feedback = (out / "feedback" / "bo.md").read_text(encoding="utf-8")
    assert "Examples from the challenge" in feedback and "題目的範例" not in feedback


def test_an_unknown_feedback_language_is_refused_before_anything_is_graded(
    tmp_path: Path, menace: Menace
) -> None:
    code, err, out = grade(menace, tmp_path, "--feedback-lang", "fr")
    assert code == 2 and "--feedback-lang 'fr'" in err and "en, zh_TW" in err
    assert "Traceback" not in err and not out.exists()
