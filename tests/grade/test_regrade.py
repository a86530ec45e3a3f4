"""After the tests change, old results are never mixed in silently; ``--regrade`` shows changed scores."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from grade_support import NO_FLOOR, RIGHT, Menace, read_grades, read_records, write

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]


def drop_hidden_test(course: Path, name: str) -> None:
    """Remove one hidden test function (its decorators and body) from after_game's hidden tests."""
    path = course / "hidden_tests" / "after_game" / "test_after_game.py"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    definition = next(i for i, line in enumerate(lines) if line.startswith(f"def {name}("))
    start = definition
    while start > 0 and lines[start - 1].startswith("@"):
        start -= 1
    end = next(i for i in range(definition + 1, len(lines)) if lines[i].startswith(("@", "def ")))
    path.write_text("".join(lines[:start] + lines[end:]), encoding="utf-8")


def test_after_the_tests_change_regrade_grades_all_again_and_prints_changed_scores(
    tmp_path: Path, menace: Menace, course_copy: Callable[[], Path]
) -> None:
    course = course_copy()
    submissions = write(tmp_path / "submissions", {"ada.py": RIGHT, "bo.py": NO_FLOOR})
    out = tmp_path / "out"
    args = ("grade", submissions, "--challenge", "after_game", "--out", out, "--course", course)
    assert menace(*args).code == 0
    old_hash = read_records(out)["ada"]["suite_hash"]

    drop_hidden_test(course, "test_win_on_a_side_square")
    refused = menace(*args)
    assert refused.code == 2
    assert "--regrade" in refused.err and "other tests" in refused.err

    regraded = menace(*args, "--regrade")
    assert regraded.code == 0, regraded.err
    assert "Graded 2 submissions" in regraded.out
    assert "score changed: ada: 15 -> 14" in regraded.out
    assert "score changed: bo: " in regraded.out
    assert "No score changed" not in regraded.out
    assert read_grades(out)["ada"]["max_score"] == "14"
    assert "win_on_a_side_square" not in read_grades(out)["ada"]
    assert read_records(out)["ada"]["suite_hash"] != old_hash


def test_regrade_with_unchanged_tests_grades_all_again_and_reports_no_change(
    tmp_path: Path, menace: Menace
) -> None:
    submissions = write(tmp_path / "submissions", {"ada.py": RIGHT, "bo.py": NO_FLOOR})
    out = tmp_path / "out"
    args = ("grade", submissions, "--challenge", "after_game", "--out", out)
    assert menace(*args).code == 0
    again = menace(*args, "--regrade")
    assert "Graded 2 submissions" in again.out and "0 already graded" in again.out
    assert "score changed:" not in again.out
    assert "No score changed" in again.out
