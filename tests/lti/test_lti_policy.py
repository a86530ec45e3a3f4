"""``score_policy`` in challenge.toml: "best" by default, "latest" on request, nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from menace_course import catalog
from menace_course.course import Course
from menace_course.errors import CourseError
from tests.support import REPO


def course_with(tmp_path: Path, line: str | None) -> Course:
    folder = tmp_path / "challenges" / "after_game"
    folder.mkdir(parents=True)
    toml = (REPO / "challenges" / "after_game" / "challenge.toml").read_text(encoding="utf-8")
    if line is not None:
        toml = toml.replace("stars = ", f"{line}\nstars = ", 1)
    (folder / "challenge.toml").write_text(toml, encoding="utf-8")
    return Course(tmp_path)


def test_the_best_attempt_counts_unless_the_challenge_says_latest(tmp_path: Path) -> None:
    assert catalog.load_challenge(course_with(tmp_path / "a", None), "after_game").score_policy == "best"
    latest = course_with(tmp_path / "b", 'score_policy = "latest"')
    assert catalog.load_challenge(latest, "after_game").score_policy == "latest"


def test_another_policy_is_refused_naming_the_file_and_the_choices(tmp_path: Path) -> None:
    course = course_with(tmp_path, 'score_policy = "worst"')
    with pytest.raises(CourseError, match=r"challenge\.toml.*score_policy.*\"best\" or \"latest\".*'worst'"):
        catalog.load_challenge(course, "after_game")
