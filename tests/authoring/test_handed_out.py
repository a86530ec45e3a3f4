"""No file we hand out earns a challenge, and ``menace grade`` notes a submission that is one.

The lesson's functions come in files students receive: ``name`` in step1.py, noughts.py
and the new_box and play_game starters, ``new_box`` in the play_game starter. The two
challenges ask for more than the lesson's code does (a 4 x 4 board; O's boxes), so a
copy earns a small part of the points; and the grader notes a submission whose function
is the handed-out one, for the instructor to look at, without changing its score.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from menace_course.authoring.public import function_shape, handed_out_match
from menace_course.course import Course
from menace_course.lesson.program_files import program_files

REPO = Path(__file__).resolve().parents[2]
STEP1 = program_files(REPO / "reference" / "steps" / "step1.py")["step1.py"]


def test_a_copy_of_step1_with_other_comments_and_layout_matches_it():
    copied = "# my answer\n" + STEP1.replace('    """The board\'s smallest', '    """Mine: the smallest')
    copied = copied.replace("best, best_way = None, None", "best,  best_way = (None, None)")
    found = handed_out_match(Course(REPO), "name", copied)
    assert found is not None and found.startswith("step1.py (menace start step1), ")
    assert "the new_box starter (menace start new_box)" in found  # the same lesson's name


def test_a_name_of_ones_own_matches_no_file_handed_out():
    own = (REPO / "reference" / "name.py").read_text(encoding="utf-8")
    assert handed_out_match(Course(REPO), "name", own) is None
    assert handed_out_match(Course(REPO), "name", "def name(board:\n") is None  # does not parse
    assert function_shape("x = 1\n", "name") is None


def test_the_play_game_starter_matches_for_new_box_and_a_challenges_own_starter_does_not():
    starter = (REPO / "challenges" / "play_game" / "starter.py").read_text(encoding="utf-8")
    found = handed_out_match(Course(REPO), "new_box", starter)
    assert found is not None and found.startswith("the play_game starter (menace start play_game), step2.py")
    own = (REPO / "challenges" / "new_box" / "starter.py").read_text(encoding="utf-8")
    assert handed_out_match(Course(REPO), "new_box", own) is None


@pytest.mark.bwrap
def test_grade_notes_a_submission_that_is_step1_for_review_and_keeps_its_score(tmp_path, menace):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "ada.py").write_text(STEP1, encoding="utf-8")
    (submissions / "bob.py").write_text((REPO / "reference" / "name.py").read_text(), encoding="utf-8")
    out = tmp_path / "out"
    ran = menace(
        "grade", submissions, "--challenge", "name", "--out", out, "--sandbox", "bwrap", "--course", REPO
    )
    assert ran.code == 0, ran.err
    records = {
        r["grading"]["student"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())
    }
    ada, bob = records["ada"], records["bob"]
    assert any(
        n.startswith("needs review: matches a file handed out: step1.py (menace start step1)")
        for n in ada["grading"]["notes"]
    ), ada["grading"]["notes"]
    assert (ada["score"], ada["max_score"]) == (1.0, 13.0)
    assert not any("handed out" in n for n in bob["grading"]["notes"])
    assert bob["score"] == bob["max_score"]
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "matches a file handed out: step1.py" in report
