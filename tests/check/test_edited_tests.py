"""A long-running grader (``menace serve``) uses the tests as they are now, not as they were.

An instructor who edits a hidden test, the challenge.toml or the reference while the
service runs gets the edited version on the next check, with no restart. The edits here
keep the file's size and land within the same second, the case a cache keyed by path,
size or modification time would miss.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from menace_course.checking.suite import Suites
from menace_course.course import Course
from menace_course.service.dispatch.base import CheckJob
from menace_course.service.dispatch.grading import check_job
from tests.support import REPO

ANSWER = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")
EXTRA = '''from menace_course import expect_equal


def test_a_win_on_an_empty_square(submission):
    """A win on an empty square gives it NNN beads."""
    expect_equal(submission.after_game([0] * 9, 0, "win")[0], NNN)
'''


@pytest.fixture
def course(tmp_path: Path) -> Course:
    root = tmp_path / "course"
    shutil.copytree(REPO / "challenges" / "after_game", root / "challenges" / "after_game")
    (root / "hidden_tests" / "after_game").mkdir(parents=True)
    shutil.copytree(REPO / "feedback_templates", root / "feedback_templates")
    (root / "reference").mkdir()
    shutil.copy(REPO / "reference" / "after_game.py", root / "reference" / "after_game.py")
    (root / "hidden_tests" / "after_game" / "test_extra.py").write_text(EXTRA.replace("NNN", "3"))
    return Course(root)


def test_a_suite_is_kept_while_its_files_are_unchanged_and_collected_again_after_an_edit(course):
    suites = Suites()
    first = suites.get(course, "after_game")
    assert suites.get(course, "after_game") is first
    test_file = course.hidden_tests_dir / "after_game" / "test_extra.py"
    test_file.write_text(EXTRA.replace("NNN", "4").replace("test_a_win", "test_b_win"))
    edited = suites.get(course, "after_game")
    assert edited is not first
    assert [c.name for c in edited.cases][-1] == "b_win_on_an_empty_square"
    assert edited.suite_hash != first.suite_hash


@pytest.mark.parametrize("edit", ["hidden test", "challenge.toml"])
def test_the_service_grader_checks_with_the_edited_tests_without_a_restart(course, edit):
    job = CheckJob("attempt-1", "after_game", "after_game.py", ANSWER)
    before = check_job(str(course.root), job, "process")
    assert before.passed, [t.outcome for t in before.tests]
    if edit == "hidden test":  # the instructor gets a rule wrong: 4 beads for a win
        test_file = course.hidden_tests_dir / "after_game" / "test_extra.py"
        test_file.write_text(EXTRA.replace("NNN", "4"))
        after = check_job(str(course.root), job, "process")
        failed = [t.name for t in after.tests if t.outcome.value != "passed"]
        assert failed == ["a_win_on_an_empty_square"]
    else:  # the instructor renames the challenge
        toml = course.challenges_dir / "after_game" / "challenge.toml"
        text = toml.read_text(encoding="utf-8")
        title = next(line for line in text.splitlines() if line.startswith("title"))
        toml.write_text(text.replace(title, 'title = "Edited while serving"'), encoding="utf-8")
        after = check_job(str(course.root), job, "process")
        assert after.title == "Edited while serving"


def test_an_edit_that_keeps_the_size_and_the_time_is_imported_afresh(tmp_path, monkeypatch):
    # Python trusts a cached .pyc whose source has the same size and whole-second mtime.
    import os
    import sys

    from menace_course.checking.importing import import_file

    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as on a machine without PYTHONDONTWRITEBYTECODE
    path = tmp_path / "test_rule.py"
    path.write_text("BEADS = 3\n")
    stat = path.stat()
    assert import_file(path).BEADS == 3
    path.write_text("BEADS = 4\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert import_file(path).BEADS == 4
