"""``menace grade`` on a small class with every kind of entry: one row each, the right verdict, feedback."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from grade_support import CLASS, EXPECTED_STATUS, Menace, read_grades, read_records, start_menace, write

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """The small class graded once for this module: (OUT, what menace printed, SUBMISSIONS)."""
    root = tmp_path_factory.mktemp("class")
    submissions, out = write(root / "submissions", CLASS), root / "out"
    done = start_menace("grade", submissions, "--challenge", "after_game", "--out", out, "--jobs", "2")
    printed, errors = done.communicate(timeout=600)
    assert done.returncode == 0, errors
    return out, printed, submissions


def test_every_student_gets_exactly_one_row_with_the_right_status(graded: tuple[Path, str, Path]) -> None:
    out = graded[0]
    grades = read_grades(out)
    assert {name: row["status"] for name, row in grades.items()} == EXPECTED_STATUS


def test_scores_and_lms_ids_are_in_the_grades(graded: tuple[Path, str, Path]) -> None:
    grades = read_grades(graded[0])
    assert grades["ada"]["score"] == grades["ada"]["max_score"] == "15"
    assert grades["fay"]["score"] == "0"
    assert grades["doejane"]["canvas_id"] == "12345"
    assert grades["Kim Lee"]["moodle_id"] == "424242"
    assert grades["bo"]["loss_on_an_empty_colour_stays_at_zero"] == "0"
    assert grades["bo"]["win_on_a_side_square"] == "1"


def test_every_student_gets_markdown_and_html_feedback(graded: tuple[Path, str, Path]) -> None:
    out = graded[0]
    records = read_records(out)
    assert set(records) == set(EXPECTED_STATUS)
    for record in records.values():
        key = record["grading"]["key"]
        assert (out / "feedback" / f"{key}.md").read_text(encoding="utf-8").strip()
        assert "<html" in (out / "feedback" / f"{key}.html").read_text(encoding="utf-8")


def test_results_are_the_check_json_records_with_the_grading_facts(graded: tuple[Path, str, Path]) -> None:
    records = read_records(graded[0])
    ada = records["ada"]
    assert ada["passed"] is True and ada["sandbox"] == "bwrap"
    assert ada["suite_hash"] and ada["version"]
    assert len(ada["grading"]["digest"]) == 64
    ada_file = graded[2] / "ada.py"
    assert ada["grading"]["file_sha256"] == hashlib.sha256(ada_file.read_bytes()).hexdigest()
    assert records["cy"]["grading"]["file"] == "cy/after_game.py"
    assert "notes.txt" in " ".join(records["cy"]["grading"]["notes"])


def test_a_cheat_reading_the_reference_finds_nothing_in_the_sandbox(graded: tuple[Path, str, Path]) -> None:
    ivy = read_records(graded[0])["ivy"]
    assert ivy["load_problem"]["detail"]["error_type"] == "FileNotFoundError"


def test_the_class_report_has_its_sections_and_plots(graded: tuple[Path, str, Path]) -> None:
    html = (graded[0] / "report.html").read_text(encoding="utf-8")
    for part in ("Scores", "Each test", "failing the same tests", "Every status", "Slowest", "<svg"):
        assert part in html


def test_the_summary_counts_and_names_what_was_left_out(graded: tuple[Path, str, Path]) -> None:
    printed = graded[1]
    assert "Graded 12 submissions" in printed and "0 already graded" in printed
    assert "passed 3, failed 4, timed out 0, errors 5" in printed
    assert ".DS_Store" in printed and "__MACOSX" in printed


def test_grading_again_grades_nothing_and_changes_nothing(
    graded: tuple[Path, str, Path], menace: Menace
) -> None:
    out, _, submissions = graded
    before = (out / "grades.csv").read_bytes()
    again = menace("grade", submissions, "--challenge", "after_game", "--out", out)
    assert again.code == 0
    assert "Graded 0 submissions" in again.out and "12 already graded" in again.out
    assert (out / "grades.csv").read_bytes() == before


def test_a_changed_submission_is_graded_again_and_its_new_score_shown(
    graded: tuple[Path, str, Path], tmp_path: Path, menace: Menace
) -> None:
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    shutil.copytree(graded[2], submissions)
    shutil.copytree(graded[0], out)
    (submissions / "bo.py").write_text((submissions / "ada.py").read_text())
    again = menace("grade", submissions, "--challenge", "after_game", "--out", out)
    assert "Graded 1 submission " in again.out and "11 already graded" in again.out
    assert "score changed: bo:" in again.out and "-> 15" in again.out
    assert read_grades(out)["bo"]["status"] == "passed"
