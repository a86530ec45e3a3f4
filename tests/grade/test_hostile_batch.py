"""``menace grade`` on the submissions folders of ``tests/corpus/hostile_batch``, as an attacker would.

Each attack is graded by the real command in its own process. Whatever the names, links
and special files, it must end on its own, exit 0 without a traceback, give every entry
exactly one row (one record, one feedback file of each format, named as the row), and
never grade one student on another's file or on anything outside the submissions folder.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from grade_support import REPO, read_grades

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

CORPUS = REPO / "tests" / "corpus" / "hostile_batch"
#: Seconds one attack may take to grade: a few students, each well under the check budget.
GRADE_TIMEOUT = 180


def _load_attacks():  # the corpus is data, not a package: load its builder by path
    spec = importlib.util.spec_from_file_location("hostile_batch_attacks", CORPUS / "attacks.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ATTACKS = _load_attacks()

#: The status each student of each attack must get.
EXPECTED: dict[str, dict[str, str]] = {
    "non_utf8_names": {
        "alice": "passed",
        "Müller": "passed",
        "Jörg": "failed",
        "ana": "passed",
        "\\x81\\x8d": "failed",
    },
    "colliding_keys": {
        "alice": "failed",
        "bob": "passed",
        **{name: "failed" for name in ("bob!", "bob-2", "Bob", "bob (2)", "bob?", "bob*", "bob:", "BOB")},
    },
    "symlinks": {
        "alice": "passed",
        "alice_notes": "passed",
        "mallory": "unreadable",
        "carol": "unreadable",
        "dave": "unreadable",
        "erin": "unreadable",
        "frank": "failed",
        "gus": "unreadable",
    },
    "hard_link": {"alice": "passed", "hal": "passed"},
    "special_files": {
        "alice": "passed",
        "fred": "unreadable",
        "gina": "failed",
        "hank": "unreadable",
        "ivan": "unreadable",
    },
    "deep_and_wide": {"alice": "passed", "kim": "failed", "lea": "failed"},
}


@dataclass
class Graded:
    submissions: Path
    out: Path
    code: int | None
    stdout: str
    stderr: str

    @property
    def records(self) -> dict[str, dict]:
        lines = (self.out / "results.jsonl").read_text(encoding="utf-8").splitlines()
        return {r["grading"]["student"]: r for r in map(json.loads, lines)}

    def notes(self, student: str) -> str:
        grading = self.records[student]["grading"]
        return " | ".join([grading["reason"], *grading["notes"]])


def grade(submissions: Path, out: Path) -> Graded:
    argv = [sys.executable, "-m", "menace_course", "grade", str(submissions)]
    argv += ["--challenge", "after_game", "--out", str(out), "--course", str(REPO), "--jobs", "2"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=GRADE_TIMEOUT, check=False, cwd=REPO)
    except subprocess.TimeoutExpired as late:
        return Graded(submissions, out, None, str(late.stdout), "timed out")
    return Graded(
        submissions,
        out,
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Graded]]:
    """Every attack built and graded once for this module (and removed afterwards: one is very deep)."""
    root = tmp_path_factory.mktemp("hostile_batch")
    try:
        yield {n: grade(ATTACKS.build(n, root / n), root / f"{n}-out") for n in ATTACKS.ATTACKS}
    finally:
        ATTACKS.remove(root)


def test_every_attack_of_the_corpus_has_its_verdicts() -> None:
    assert set(EXPECTED) == set(ATTACKS.ATTACKS)


@pytest.mark.parametrize("attack", sorted(EXPECTED))
def test_grading_ends_cleanly_with_one_row_per_entry(graded: dict[str, Graded], attack: str) -> None:
    run = graded[attack]
    assert run.code == 0, run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    grades = read_grades(run.out)  # fails on a student with two rows
    assert {name: row["status"] for name, row in grades.items()} == EXPECTED[attack]
    records = run.records
    assert set(records) == set(grades)
    keys = [r["grading"]["key"] for r in records.values()]
    assert len({k.casefold() for k in keys}) == len(keys), keys
    assert sorted(p.stem for p in (run.out / ".results").glob("*.json")) == sorted(keys)
    for suffix in (".md", ".html"):
        assert sorted(p.stem for p in (run.out / "feedback").glob(f"*{suffix}")) == sorted(keys)


def test_names_that_are_not_utf8_are_read_as_windows_names_and_said_so(graded: dict[str, Graded]) -> None:
    run = graded["non_utf8_names"]
    assert "not UTF-8" in run.notes("Müller") and "M\\xfcller.py" in run.notes("Müller")
    assert run.records["Müller"]["grading"]["file"] == "Müller.py"
    assert (run.out / "feedback" / "Müller.md").read_text(encoding="utf-8").strip()
    assert run.records["Jörg"]["grading"]["file"] == "Jörg/after_game.py"


@pytest.mark.parametrize("attack", ["non_utf8_names", "colliding_keys"])
def test_grading_the_same_folder_again_finds_everything_already_graded(
    graded: dict[str, Graded], attack: str
) -> None:
    first = graded[attack]
    again = grade(first.submissions, first.out)
    assert again.code == 0, again.stderr
    assert "Graded 0 submissions" in again.stdout
    assert f"{len(EXPECTED[attack])} already graded" in again.stdout


def test_colliding_names_keep_their_own_records(graded: dict[str, Graded]) -> None:
    run = graded["colliding_keys"]
    for student, record in run.records.items():
        assert record["grading"]["source"] == f"{student}.py"
    assert run.records["bob"]["score"] == 15


def test_no_student_is_graded_on_a_file_reached_through_a_link(graded: dict[str, Graded]) -> None:
    run = graded["symlinks"]
    for student in ("mallory", "carol", "dave", "erin", "gus"):
        assert "links are never followed" in run.notes(student), student
        assert run.records[student]["score"] == 0
    assert "another entry" in run.notes("mallory") and "outside the submissions folder" in run.notes("erin")
    assert "inside the same entry" in run.notes("frank")
    assert run.records["frank"]["grading"]["file"] == "frank/src/mine.py"


def test_a_hard_link_between_two_entries_is_flagged_for_review(graded: dict[str, Graded]) -> None:
    run = graded["hard_link"]
    for student in ("alice", "hal"):
        assert "needs review" in run.notes(student)
    report = (run.out / "report.html").read_text(encoding="utf-8")
    assert "Needs review" in report and "hal" in report


def test_fifos_and_sockets_are_skipped_with_a_note(graded: dict[str, Graded]) -> None:
    run = graded["special_files"]
    assert "named pipe (FIFO)" in run.notes("fred") and "named pipe (FIFO)" in run.notes("hank")
    assert "not graded: gina/notes.py is a named pipe" in run.notes("gina")
    assert "socket" in run.notes("ivan")


def test_deep_and_wide_folders_are_looked_at_only_so_far(graded: dict[str, Graded]) -> None:
    run = graded["deep_and_wide"]
    assert "deeper than" in run.notes("kim")
    assert run.records["kim"]["grading"]["file"] == "kim/after_game.py"
    assert "were looked at" in run.notes("lea")
