"""Records on disk: written whole or not at all, read back or treated as missing, one writer at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from menace_course.atomic import atomic_writer
from menace_course.errors import UsageError
from menace_course.grading.record import Grading, Record
from menace_course.grading.store import Kept, ResultStore
from menace_course.models import Outcome, Status, SubmissionReport, TestKind, TestResult, Verdict


def record(key: str, score: float) -> Record:
    test = TestResult("wins", "A win adds three", TestKind.HIDDEN, Outcome.PASSED, "passed", score, 15.0)
    report = SubmissionReport(
        "after_game", "Back into the box", "after_game", "a.py", "bwrap", Status.CHECKED, (test,), score, 15.0
    )
    return Record(report, Grading(student=key.title(), key=key, status=Verdict.PASSED, digest="d1"))


def test_a_saved_record_is_read_back_whole_and_typed(tmp_path: Path) -> None:
    with ResultStore(tmp_path) as store:
        store.save(record("ada", 15))
        assert store.load("ada") == record("ada", 15)
        assert store.summary("ada") == Kept("after_game", "", "d1", 15.0)
        assert store.keys() == {"ada"}


def test_a_write_that_fails_half_way_leaves_the_old_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "grades.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_writer(path) as handle:
        handle.write("new, half")
        raise RuntimeError("killed")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["grades.csv"]


def test_a_record_that_cannot_be_read_counts_as_missing(tmp_path: Path) -> None:
    with ResultStore(tmp_path) as store:
        store.path("ada").write_text('{"score": 1')  # cut short
        store.path("bo").write_text('["not a record"]')
        assert store.load("ada") is None and store.load("bo") is None


def test_opening_removes_what_a_killed_writer_left(tmp_path: Path) -> None:
    left = tmp_path / ".results" / ".ada.json.1234.tmp"
    left.parent.mkdir(parents=True)
    left.write_text("{")
    with ResultStore(tmp_path):
        assert not left.exists()


def test_only_one_store_may_be_open_on_an_out(tmp_path: Path) -> None:
    with ResultStore(tmp_path), pytest.raises(UsageError, match="another menace grade"):
        ResultStore(tmp_path).open()
    with ResultStore(tmp_path):  # released when the first closed
        pass
