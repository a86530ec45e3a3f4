"""``menace serve export`` writes what ``menace grade`` writes, so every LMS export reads it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.service.support import BUGGY, CORRECT, add_user, bearer, make_app, menace, stop_app

pytestmark = pytest.mark.slow


def _rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def test_the_export_is_menace_grades_own_files_and_lms_exports_read_it(tmp_path: Path, db_url: str) -> None:
    app = make_app(db_url)
    try:
        client = app.test_client()
        _, alice = add_user(app, "alice")
        _, bob = add_user(app, "bob")
        add_user(app, "cy")  # never checks
        for token, files in ((alice, (BUGGY, CORRECT, BUGGY)), (bob, (BUGGY,))):
            for path in files:
                answer = client.post(
                    "/api/v1/checks?wait=30",
                    headers=bearer(token),
                    json={"challenge": "after_game", "filename": "after_game.py", "source": path.read_text()},
                )
                assert answer.status_code == 200
    finally:
        stop_app(app)

    out = tmp_path / "served"
    done = menace("serve", "export", "--challenge", "after_game", "--out", str(out), "--db", db_url)
    assert done.returncode == 0, done.stderr
    assert "wrote 2 students with a checked attempt (best counts)" in done.stdout
    # cy never checked: left out (the LMS keeps her grade), and said so, by name.
    assert "left out 1 student of 3 with no checked attempt (cy)" in done.stdout
    assert set(_rows(out / "grades.csv")) == {"alice", "bob"}
    latest = tmp_path / "latest"
    assert (
        menace(
            "serve",
            "export",
            "--challenge",
            "after_game",
            "--out",
            str(latest),
            "--pick",
            "latest",
            "--db",
            db_url,
        ).returncode
        == 0
    )

    submissions = tmp_path / "submissions"
    (submissions / "alice").mkdir(parents=True)
    (submissions / "bob").mkdir()
    (submissions / "alice" / "after_game.py").write_text(CORRECT.read_text())
    (submissions / "bob" / "after_game.py").write_text(BUGGY.read_text())
    graded = tmp_path / "graded"
    assert (
        menace(
            "grade",
            str(submissions),
            "--challenge",
            "after_game",
            "--out",
            str(graded),
            "--jobs",
            "1",
            timeout=300,
        ).returncode
        == 0
    )

    for name in ("grades.csv", "results.jsonl", "report.html"):
        assert (out / name).is_file()
    assert {p.name for p in (out / "feedback").iterdir()} == {p.name for p in (graded / "feedback").iterdir()}
    served, by_grade = _rows(out / "grades.csv"), _rows(graded / "grades.csv")
    assert list(served["alice"]) == list(by_grade["alice"])  # the same columns, in the same order
    for student in ("alice", "bob"):
        for column in ("score", "max_score", "status"):
            assert served[student][column] == by_grade[student][column]
    assert _rows(latest / "grades.csv")["alice"]["score"] == "6"  # her last attempt had the bug again
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    graded_records = [json.loads(line) for line in (graded / "results.jsonl").read_text().splitlines()]
    assert [set(r) for r in records] == [set(r) for r in graded_records]
    assert set(records[0]["grading"]) == set(graded_records[0]["grading"])
    assert "service attempt" in records[0]["grading"]["source"]

    moodle = menace("export", "moodle", "--results", str(out), "--out", str(tmp_path / "moodle.csv"))
    assert moodle.returncode == 0, moodle.stderr
    assert "alice" in (tmp_path / "moodle.csv").read_text()


def test_exporting_an_unknown_challenge_is_exit_2(tmp_path: Path) -> None:
    done = menace(
        "serve",
        "export",
        "--challenge",
        "after_gam",
        "--out",
        str(tmp_path / "o"),
        "--db",
        f"sqlite:///{tmp_path / 'x.sqlite3'}",
    )
    assert done.returncode == 2 and "did you mean 'after_game'" in done.stderr
