"""One folder, every entry point, one verdict: the file graded is chosen by one rule.

The folder holds ``after_game.py`` (the student's notes, which define nothing) and
``solution.py`` (the real answer). ``menace grade`` used to grade ``solution.py`` and the
Gradescope autograder ``after_game.py``. Each entry point must now pick ``solution.py``
(:mod:`menace_course.checking.entry`: what defines the function decides before the name)
and give it full marks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from menace_course.authoring.killing import Judge
from menace_course.autograders import gradescope as gradescope_autograder
from menace_course.checking.entry import Candidate, choose_file, pick_file
from menace_course.checking.pipeline import check_submission
from menace_course.checking.suite import load_suite
from menace_course.course import find_course
from tests.support import REPO

ANSWER = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")
NOTES = '''"""My notes for after_game: a win adds 3 beads, a draw 1, a loss takes 1."""
IDEAS = ["copy the list first", "never below zero"]
'''


@pytest.fixture
def entry(tmp_path: Path) -> Path:
    folder = tmp_path / "submissions" / "alice"
    folder.mkdir(parents=True)
    (folder / "after_game.py").write_text(NOTES, encoding="utf-8")
    (folder / "solution.py").write_text(ANSWER, encoding="utf-8")
    return folder


def test_the_rule_picks_the_file_that_defines_the_function_over_the_one_named_after_it(entry):
    choice = pick_file(entry, "after_game", "after_game")
    assert choice.file is not None and choice.file.shown == "solution.py"
    assert choice.notes == (
        "graded solution.py (the only one that defines after_game); also handed in: after_game.py",
    )


def test_the_name_decides_among_files_that_all_define_the_function(tmp_path):
    for name in ("a.ipynb", "after_game.ipynb", "b.py", "after_game.py"):
        (tmp_path / name).write_text("def after_game(b, s, r):\n    return b\n")
    candidates = [Candidate(p, p.name) for p in sorted(tmp_path.iterdir())]
    assert choose_file(candidates, "after_game", "after_game").file.shown == "after_game.py"


def test_a_folder_where_nothing_defines_the_function_and_nothing_is_named_after_it_has_a_problem(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    choice = pick_file(tmp_path, "after_game", "after_game")
    assert choice.file is None and choice.problem.code == "no_function"


def test_links_and_fifos_in_a_folder_are_never_read(tmp_path):
    import os

    (tmp_path / "elsewhere.py").write_text(ANSWER)
    folder = tmp_path / "mallory"
    folder.mkdir()
    (folder / "after_game.py").symlink_to(tmp_path / "elsewhere.py")
    os.mkfifo(folder / "pipe.py")
    choice = pick_file(folder, "after_game", "after_game")
    assert choice.file is None
    assert "after_game.py (a link)" in " ".join(choice.notes)
    assert "pipe.py (not a regular file)" in " ".join(choice.notes)


@pytest.mark.slow
def test_menace_check_grades_the_answer(entry):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "menace_course",
            "check",
            str(entry),
            "--challenge",
            "after_game",
            "--format",
            "json",
            "--sandbox",
            "process",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = json.loads(done.stdout)
    assert (report["file"], report["passed"], done.returncode) == ("solution.py", True, 0), done.stderr
    assert "graded solution.py" in report["notices"][0]


@pytest.mark.slow
def test_menace_grade_grades_the_answer(entry, tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "menace_course",
            "grade",
            str(entry.parent),
            "--challenge",
            "after_game",
            "--out",
            str(out),
            "--sandbox",
            "process",
            "--i-accept-no-sandbox",
            "--jobs",
            "1",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    record = json.loads((out / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert record["grading"]["file"].endswith("solution.py") and record["file"] == "solution.py"
    assert record["score"] == record["max_score"] > 0


@pytest.mark.slow
def test_the_gradescope_autograder_grades_the_answer(entry, tmp_path, monkeypatch):
    import menace_course.course

    root = tmp_path / "autograder"
    (root / "submission").parent.mkdir()
    entry.rename(root / "submission")
    monkeypatch.setattr(menace_course.course, "BUNDLED_COURSE", REPO)  # the instructor's course
    results = gradescope_autograder.grade(root, "after_game", "visible", "process")
    menace = results["extra_data"]["menace"]
    assert (menace["file"], menace["status"]) == ("solution.py", "checked")
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) > 0


@pytest.mark.slow
def test_validate_grades_the_answer(entry):
    with Judge(find_course(REPO), "process", jobs=1) as judge:  # how validate checks a file
        (report,) = judge.check_files("after_game", [entry])
    assert (report.file, report.passed) == ("solution.py", True)


@pytest.mark.slow
def test_check_submission_takes_a_folder_a_file_or_bytes_alike(entry):
    suite = load_suite(find_course(REPO), "after_game")
    reports = [
        check_submission(entry, suite, "process"),
        check_submission(entry / "solution.py", suite, "process"),
        check_submission(("solution.py", ANSWER.encode()), suite, "process"),
    ]
    assert [(r.file, r.score, r.max_score, r.passed) for r in reports] == [("solution.py", 15, 15, True)] * 3


@pytest.mark.slow
def test_the_hidden_tests_under_pytest_test_the_answer(entry):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "hidden_tests/after_game",
            "--submission",
            str(entry),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout


@pytest.mark.slow
def test_the_check_service_grades_the_answer(entry, tmp_path):
    """``menace check FOLDER --server``: the client picks the file by the rule, the service checks it."""
    pytest.importorskip("flask")
    from tests.service.support import LiveService, menace

    service = LiveService(tmp_path, f"sqlite:///{tmp_path / 'service.sqlite3'}").start()
    try:
        added = menace("users", "add", "alice", "--db", service.db_url)
        assert added.returncode == 0, added.stderr
        done = menace(
            "check",
            str(entry),
            "--challenge",
            "after_game",
            "--format",
            "json",
            "--server",
            service.url,
            cwd=REPO,  # the course (a student's kit would do as well) tells the client the rule
            env={"MENACE_TOKEN": added.stdout.split()[1]},
        )
    finally:
        service.stop()
    report = json.loads(done.stdout)
    assert (report["file"], report["passed"], done.returncode) == ("solution.py", True, 0), done.stderr
    assert report["hidden_not_run"] == []  # the service ran the hidden tests too


def test_the_lessons_program_runner_goes_in_by_the_one_path(monkeypatch):
    """The page's programs are untrusted: they are opened as a submission is, not by a Worker of their own."""
    pytest.importorskip("flask")
    from menace_course.checking import pipeline
    from menace_course.service.lesson import programs

    opened = []
    real = pipeline.open_submission

    def spy(submission, challenge, sandbox, **options):
        opened.append((submission[0], challenge.function, challenge.limits))
        return real(submission, challenge, sandbox, **options)

    monkeypatch.setattr(programs, "open_submission", spy)
    run = programs.run_program("print('hello')\n", "process")
    assert (run.printed, run.problem, run.error) == ("hello\n", None, None)
    assert opened == [("program.py", programs.ENTRY, programs.Limits())]


def test_a_folder_nested_deeper_than_python_can_recurse_is_walked_without_a_crash(tmp_path):
    import sys

    from menace_course.checking.walk import MAX_DEPTH

    deep = tmp_path / "deep"
    here = deep
    here.mkdir()
    for _ in range(sys.getrecursionlimit() + 50):  # os.walk on Python 3.11 recurses once a level
        here = here / "d"
        here.mkdir()
    (here / "after_game.py").write_text(ANSWER)
    (deep / "solution.py").write_text(ANSWER)
    try:
        choice = pick_file(deep, "after_game", "after_game")
    finally:  # shutil.rmtree, which cleans tmp_path, recurses once a level too
        (here / "after_game.py").unlink()
        while here != deep:
            here.rmdir()
            here = here.parent
    assert choice.file is not None and choice.file.shown == "solution.py"
    assert f"not looked into: {'d/' * MAX_DEPTH}d/ (folders deeper than {MAX_DEPTH} levels)" in choice.notes


def test_a_folder_of_very_many_files_is_looked_at_only_up_to_the_cap(tmp_path):
    from menace_course.checking.walk import MAX_ENTRIES

    folder = tmp_path / "many"
    (folder / "junk").mkdir(parents=True)
    for index in range(MAX_ENTRIES + 100):
        (folder / "junk" / f"n{index:05}.txt").touch()
    # Beside the junk, not in it: of a folder with too many names, only those the file
    # system gives first are read, and the answer could be one of the rest.
    (folder / "a_solution.py").write_text(ANSWER)
    choice = pick_file(folder, "after_game", "after_game")
    assert choice.file is not None and choice.file.shown == "a_solution.py"
    assert any(note.startswith("only the first") for note in choice.notes)


def test_a_huge_file_in_a_folder_is_capped_before_it_is_read(tmp_path):
    from menace_course.checking.loader import MAX_BYTES

    folder = tmp_path / "huge"
    folder.mkdir()
    (folder / "solution.py").write_text(ANSWER)
    with (folder / "after_game.py").open("wb") as huge:  # sparse: 8 GB on paper, nothing on disk
        huge.truncate(8 * 1024**3)
        huge.seek(0)
        huge.write(b"def after_game(beads, square, result):\n    return beads\n")
    choice = pick_file(folder, "after_game", "after_game")
    # Only the first MAX_BYTES + 1 bytes are ever read: too big to be the answer, not a hang or MemoryError.
    assert choice.file is not None and choice.file.shown == "solution.py", choice.notes
    assert MAX_BYTES < 8 * 1024**3
