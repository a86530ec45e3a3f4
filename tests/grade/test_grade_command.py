"""Bad input to ``menace grade`` gets a clear one-line reason and exit code 2, never a traceback."""

from __future__ import annotations

import errno
import shutil
import zipfile
from pathlib import Path

import pytest
from grade_support import RIGHT, Menace, read_records, write

from menace_course.commands import grade as grade_command
from menace_course.errors import SandboxUnavailable
from menace_course.grading.store import ResultStore


def grade(menace: Menace, submissions: Path, out: Path, *extra: str):
    return menace("grade", submissions, "--challenge", "after_game", "--out", out, *extra)


def test_a_missing_submissions_folder_is_exit_2(tmp_path: Path, menace: Menace) -> None:
    ran = grade(menace, tmp_path / "nowhere", tmp_path / "out")
    assert ran.code == 2 and "no such folder" in ran.err and "Traceback" not in ran.err


def test_a_zip_instead_of_a_folder_says_to_unzip_it(tmp_path: Path, menace: Menace) -> None:
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("ada.py", RIGHT)
    ran = grade(menace, archive, tmp_path / "out")
    assert ran.code == 2 and "unzip it first" in ran.err


def test_an_unknown_challenge_suggests_the_closest(tmp_path: Path, menace: Menace) -> None:
    submissions = write(tmp_path / "submissions", {"ada.py": RIGHT})
    ran = menace("grade", submissions, "--challenge", "aftergame", "--out", tmp_path / "out")
    assert ran.code == 2 and "did you mean 'after_game'" in ran.err


def test_out_inside_the_submissions_is_refused(tmp_path: Path, menace: Menace) -> None:
    submissions = write(tmp_path / "submissions", {"ada.py": RIGHT})
    ran = grade(menace, submissions, submissions / "graded")
    assert ran.code == 2 and "inside" in ran.err


def test_a_folder_without_submissions_is_exit_2(tmp_path: Path, menace: Menace) -> None:
    submissions = write(tmp_path / "submissions", {".DS_Store": "x"})
    ran = grade(menace, submissions, tmp_path / "out")
    assert ran.code == 2 and "holds no submissions (only .DS_Store)" in ran.err


def test_the_process_sandbox_needs_the_loud_option(tmp_path: Path, menace: Menace) -> None:
    submissions = write(tmp_path / "submissions", {"ada.py": RIGHT})
    ran = grade(menace, submissions, tmp_path / "out", "--sandbox", "process")
    assert ran.code == 2 and "--i-accept-no-sandbox" in ran.err


def test_without_bubblewrap_grading_refuses_unless_told_and_then_warns(
    tmp_path: Path, menace: Menace, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_bwrap(requested: str) -> str:
        raise SandboxUnavailable("bubblewrap (bwrap) cannot run here")

    monkeypatch.setattr(grade_command, "choose_kind", no_bwrap)
    submissions, out = write(tmp_path / "submissions", {"ada.py": RIGHT}), tmp_path / "out"
    refused = grade(menace, submissions, out)
    assert refused.code == 2 and "--i-accept-no-sandbox" in refused.err
    accepted = grade(menace, submissions, out, "--i-accept-no-sandbox")
    assert accepted.code == 0
    assert "WARNING: grading WITHOUT a sandbox" in accepted.err
    assert read_records(out)["ada"]["sandbox"] == "process"


def test_a_second_grader_on_the_same_out_is_refused(tmp_path: Path, menace: Menace) -> None:
    submissions, out = write(tmp_path / "submissions", {"ada.py": RIGHT}), tmp_path / "out"
    with ResultStore(out):
        ran = grade(menace, submissions, out)
    assert ran.code == 2 and "another menace grade is writing" in ran.err


def test_an_out_of_another_challenge_is_refused(tmp_path: Path, menace: Menace) -> None:
    submissions, out = write(tmp_path / "submissions", {"ada.py": RIGHT}), tmp_path / "out"
    assert grade(menace, submissions, out, "--sandbox", "process", "--i-accept-no-sandbox").code == 0
    ran = menace("grade", submissions, "--challenge", "count_boxes", "--out", out)
    assert ran.code == 2 and "holds results of the challenge 'after_game'" in ran.err


def test_a_full_disk_stops_the_batch_with_a_clear_message(
    tmp_path: Path, menace: Menace, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(store: ResultStore, record: dict) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(store.folder))

    monkeypatch.setattr(ResultStore, "save", disk_full)
    submissions, out = write(tmp_path / "submissions", {"ada.py": RIGHT}), tmp_path / "out"
    ran = grade(menace, submissions, out, "--sandbox", "process", "--i-accept-no-sandbox")
    assert ran.code == 1
    assert "No space left on device" in ran.err and "run the same command again" in ran.err


def test_a_students_kit_cannot_grade(tmp_path: Path, menace: Menace, course_copy) -> None:
    kit = course_copy()
    shutil.rmtree(kit / "hidden_tests")
    submissions = write(tmp_path / "submissions", {"ada.py": RIGHT})
    ran = grade(menace, submissions, tmp_path / "out", "--course", str(kit))
    assert ran.code == 2 and "has no hidden tests" in ran.err


def test_the_summary_says_1_student_and_2_students(tmp_path: Path, menace: Menace) -> None:
    submissions, out = write(tmp_path / "submissions", {"ada.py": RIGHT, "bo.py": RIGHT}), tmp_path / "out"
    two = grade(menace, submissions, out, "--sandbox", "process", "--i-accept-no-sandbox")
    assert two.code == 0
    assert "Graded 2 submissions in" in two.out and "\n2 students: passed 2, failed 0," in two.out
    (submissions / "bo.py").unlink()
    (submissions / "ada.py").write_text(RIGHT + "\n# changed\n", encoding="utf-8")
    one = grade(menace, submissions, out, "--sandbox", "process", "--i-accept-no-sandbox")
    assert one.code == 0
    assert "Graded 1 submission in" in one.out and "\n1 student: passed 1, failed 0," in one.out
    assert "Kept but not listed: 1 earlier result of an entry no longer in SUBMISSIONS (bo)" in one.out
