"""The one walk of a student's folder (:mod:`menace_course.checking.walk`), and both of its callers.

``menace check`` (:func:`~menace_course.checking.entry.pick_file`) and ``menace grade``
(:func:`~menace_course.grading.discover.discover`) look into a folder a student handed in
with the same walk: bounded in names read (however many a folder holds), in depth, never
through a link. The bound on names is observed here by counting what :func:`os.scandir`
hands out while the walk runs.
"""

from __future__ import annotations

import contextlib
import csv
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from menace_course.checking import walk as walk_module
from menace_course.checking.entry import entry_files, pick_file
from menace_course.checking.walk import MAX_DEPTH, MAX_ENTRIES, MAX_FILES, FoundKind, walk
from menace_course.grading.discover import discover

ANSWER = "def after_game(beads, square, result):\n    return beads\n"
#: Names beyond the bound in the wide folders below: far more than one read ahead.
MANY = 2000


@pytest.fixture
def names_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many names ``os.scandir`` has handed out since the test began (one number, in a list)."""
    count = [0]
    real = os.scandir

    @contextlib.contextmanager
    def counting(path: Path) -> Iterator[Iterator[os.DirEntry[str]]]:
        def each(listing: Iterator[os.DirEntry[str]]) -> Iterator[os.DirEntry[str]]:
            for child in listing:
                count[0] += 1
                yield child

        with real(path) as listing:
            yield each(listing)

    monkeypatch.setattr(walk_module.os, "scandir", counting)
    return count


def stopped_in(folder: str) -> str:
    """The sentence both callers add when the bound on names stops the walk in ``folder``."""
    return f"only the first {MAX_ENTRIES} files and folders were looked at (stopped in {folder})"


def wide(folder: Path, names: int) -> Path:
    """``folder`` holding ``names`` empty folders (folders: so the bound on files never stops first)."""
    folder.mkdir(parents=True)
    for index in range(names):
        (folder / f"n{index:05}").mkdir()
    return folder


def test_a_folder_with_more_names_than_the_bound_is_not_read_to_its_end(tmp_path, names_read):
    wide(tmp_path / "junk", MAX_ENTRIES + MANY)
    found = list(walk(tmp_path))
    assert names_read[0] <= MAX_ENTRIES + 1
    assert found[-1].kind is FoundKind.TOO_MANY and found[-1].parts == ("junk",)
    assert found[-1].left_out("junk/") == stopped_in("junk/")
    assert len(found) == 1 + (MAX_ENTRIES - 1) + 1  # junk itself, what was read of it, the stop


def test_hidden_names_and_litter_count_against_the_bound_too(tmp_path, names_read):
    folder = tmp_path / "mac"
    folder.mkdir()
    for index in range(MAX_ENTRIES + MANY):
        (folder / f"._{index:05}.py").touch()  # what macOS zips leave beside each file
    (found,) = walk(folder)
    assert found.kind is FoundKind.TOO_MANY and found.parts == ()
    assert names_read[0] <= MAX_ENTRIES + 1


def test_a_folder_at_the_bound_exactly_is_read_whole_and_nothing_is_said(tmp_path):
    wide(tmp_path / "junk", MAX_ENTRIES - 1)  # with junk itself: MAX_ENTRIES names
    found = list(walk(tmp_path))
    assert len(found) == MAX_ENTRIES and all(f.kind is FoundKind.FOLDER for f in found)


def test_a_folders_names_come_in_order_and_then_what_its_folders_hold(tmp_path):
    for name in ("b/z.py", "b/a.py", "a/c/d.py", "c.py", "a/b.py", ".git/config", "__pycache__/c.pyc"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).touch()
    shown = ["/".join(f.parts) for f in walk(tmp_path)]
    assert shown == ["a", "b", "c.py", "a/b.py", "a/c", "a/c/d.py", "b/a.py", "b/z.py"]


def test_links_fifos_and_folders_too_deep_are_reported_not_entered_or_opened(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "answer.py").write_text(ANSWER)
    entry = tmp_path / "entry"
    deep = entry / Path(*["d"] * (MAX_DEPTH + 1))
    deep.mkdir(parents=True)
    (deep / "lost.py").write_text(ANSWER)
    os.symlink(tmp_path / "elsewhere", entry / "link")
    os.mkfifo(entry / "pipe.py")  # opening it would block for ever
    kinds = {"/".join(f.parts): f.kind for f in walk(entry) if f.kind is not FoundKind.FOLDER}
    assert kinds == {
        "link": FoundKind.LINK,
        "pipe.py": FoundKind.SPECIAL,
        "/".join(["d"] * (MAX_DEPTH + 1)): FoundKind.TOO_DEEP,
    }


def test_a_folder_that_cannot_be_listed_is_reported_as_such(tmp_path):
    (tmp_path / "file.py").write_text(ANSWER)
    (found,) = walk(tmp_path / "file.py")
    assert (found.kind, found.parts, found.error) == (FoundKind.UNLISTABLE, (), "Not a directory")


# -- both callers: the same bound, the same sentence


def test_check_finds_the_answer_beside_a_huge_folder_and_says_where_it_stopped(tmp_path, names_read):
    entry = tmp_path / "alice"
    wide(entry / "junk", MAX_ENTRIES + MANY)
    (entry / "after_game.py").write_text(ANSWER)
    choice = pick_file(entry, "after_game", "after_game")
    assert choice.file is not None and choice.file.shown == "after_game.py"
    assert stopped_in("junk/") in choice.notes
    assert names_read[0] <= MAX_ENTRIES + 1


def test_check_of_a_folder_too_wide_at_its_top_names_the_folder(tmp_path, names_read):
    entry = wide(tmp_path / "alice", MAX_ENTRIES + MANY)
    choice = pick_file(entry, "after_game", "after_game")
    assert choice.file is None and choice.problem is not None
    assert stopped_in("alice/") in choice.notes
    assert names_read[0] <= MAX_ENTRIES + 1


def test_grade_reads_each_huge_student_folder_only_up_to_the_bound_and_says_where(tmp_path, names_read):
    submissions = tmp_path / "submissions"
    wide(submissions / "lea" / "junk", MAX_ENTRIES + MANY)
    (submissions / "lea" / "after_game.py").write_text(ANSWER)
    wide(submissions / "max", MAX_ENTRIES + MANY)
    (submissions / "ada.py").write_text(ANSWER)
    entries = {e.student: e for e in discover(submissions, "after_game", "after_game").entries}
    assert entries["lea"].file == Path("lea/after_game.py") and entries["ada"].file == Path("ada.py")
    assert stopped_in("junk/") in entries["lea"].notes
    assert entries["max"].file is None and stopped_in("max/") in entries["max"].notes
    assert names_read[0] <= 2 * (MAX_ENTRIES + 1)  # a bound for each student's folder


def test_grade_and_check_stop_at_the_same_number_of_files(tmp_path):
    entry = tmp_path / "submissions" / "bo"
    entry.mkdir(parents=True)
    (entry / "after_game.py").write_text(ANSWER)
    for index in range(MAX_FILES + 10):
        (entry / f"n{index:04}.txt").touch()
    (bo,) = discover(entry.parent, "after_game", "after_game").entries
    choice = pick_file(entry, "after_game", "after_game")
    assert f"only the first {MAX_FILES} files were looked at" in bo.notes
    assert f"only the first {MAX_FILES} files were looked at" in choice.notes
    assert bo.file == Path("bo/after_game.py") and choice.file is not None
    kept = entry_files(entry)
    assert (len(kept.files), len(kept.others)) == (1, MAX_FILES - 1)
    (others,) = (n for n in bo.notes if n.startswith("not graded (not .py or .ipynb): "))
    assert others.count(".txt") == MAX_FILES - 1


def test_grade_and_check_word_a_folder_too_deep_alike(tmp_path):
    entry = tmp_path / "submissions" / "kim"
    (entry / Path(*["d"] * (MAX_DEPTH + 1))).mkdir(parents=True)
    (entry / "after_game.py").write_text(ANSWER)
    (kim,) = discover(entry.parent, "after_game", "after_game").entries
    choice = pick_file(entry, "after_game", "after_game")
    sentence = f"not looked into: {'d/' * (MAX_DEPTH + 1)} (folders deeper than {MAX_DEPTH} levels)"
    assert sentence in kim.notes and sentence in choice.notes


def test_a_folder_holding_more_than_the_walk_looks_at_is_unreadable_and_says_why_never_empty(tmp_path):
    submissions = tmp_path / "submissions"
    # max: so many names that the walk stops at the top; the answer is in a folder never entered.
    wide(submissions / "max", MAX_ENTRIES + MANY)
    (submissions / "max" / f"n{MAX_ENTRIES + MANY - 1:05}" / "after_game.py").write_text(ANSWER)
    # kim: the answer is deeper than the walk goes.
    deep = submissions / "kim" / Path(*["d"] * (MAX_DEPTH + 1))
    deep.mkdir(parents=True)
    (deep / "after_game.py").write_text(ANSWER)
    # bo: the answer comes after more files than are looked at.
    (submissions / "bo").mkdir()
    for index in range(MAX_FILES + 10):
        (submissions / "bo" / f"n{index:04}.txt").touch()
    (submissions / "bo" / "z_after_game.py").write_text(ANSWER)
    entries = {e.student: e for e in discover(submissions, "after_game", "after_game").entries}
    bounds = {
        "max": stopped_in("max/"),
        "kim": f"(folders deeper than {MAX_DEPTH} levels)",
        "bo": f"only the first {MAX_FILES} files were looked at",
    }
    for student, bound in bounds.items():
        problem = entries[student].problem
        choice = pick_file(submissions / student, "after_game", "after_game")
        assert problem is not None and choice.problem is not None, student
        assert (problem.code, choice.problem.code) == ("unreadable", "unreadable"), student
        assert bound in problem.message and bound in choice.problem.message
        for said in (problem.message, choice.problem.message):
            assert said.startswith("no .py or .ipynb file was found in the part of the folder that was")
            assert "was handed in" not in said  # neither "nothing was" nor "no .py file was" handed in


def test_grade_tells_instructor_and_student_that_a_folder_too_deep_was_not_looked_through(tmp_path, menace):
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    deep = submissions / "kim" / Path(*["d"] * (MAX_DEPTH + 1))
    deep.mkdir(parents=True)
    (deep / "after_game.py").write_text(ANSWER)
    options = ("--jobs", "1", "--sandbox", "process", "--i-accept-no-sandbox")  # nothing of kim's runs
    ran = menace("grade", submissions, "--challenge", "after_game", "--out", out, *options)
    assert ran.code == 0, ran.err
    (row,) = csv.DictReader((out / "grades.csv").open(encoding="utf-8"))
    assert row["status"] == "unreadable" and f"deeper than {MAX_DEPTH} levels" in row["reason"]
    feedback = (out / "feedback" / "kim.md").read_text(encoding="utf-8")
    assert f"deeper than {MAX_DEPTH} levels" in feedback
    assert "hand in the .py or .ipynb file on its own" in feedback
    assert "nothing was handed in" not in feedback
