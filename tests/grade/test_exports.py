"""``menace export canvas|moodle|csv`` on a graded class and realistic Canvas gradebooks."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from grade_support import FIXTURES, NO_FLOOR, RIGHT, Menace, start_menace, write

GRADEBOOK = FIXTURES / "canvas_gradebook.csv"
SEMICOLONS = FIXTURES / "canvas_gradebook_semicolon.csv"
COLUMN = "MENACE: Back into the box (4567)"

CANVAS_CLASS = {
    "doejane_12345_67890_after_game.py": RIGHT,  # Canvas user id
    "smithalex_LATE_23456_67891_after_game.py": NO_FLOOR,
    "jlee.py": RIGHT,  # SIS login
    "Maria Garcia/after_game.py": NO_FLOOR,  # name, first name first
}
MOODLE_CLASS = {
    "Kim Lee_424242_assignsubmission_file_/menace.py": RIGHT,
    "Ola Nowak_515151_assignsubmission_file_/after_game.py": NO_FLOOR,
    "pat.py": RIGHT,
}


def graded(root: Path, files: dict[str, str | bytes | None]) -> Path:
    out = root / "out"
    submissions = write(root / "submissions", files)
    args = ("grade", submissions, "--challenge", "after_game", "--out", out)
    done = start_menace(*args, "--sandbox", "process", "--i-accept-no-sandbox")
    assert done.wait(timeout=600) == 0, done.communicate()[1]
    return out


@pytest.fixture(scope="module")
def canvas_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return graded(tmp_path_factory.mktemp("canvas"), CANVAS_CLASS)


@pytest.fixture(scope="module")
def moodle_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return graded(tmp_path_factory.mktemp("moodle"), MOODLE_CLASS)


def rows(path: Path, delimiter: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig")), delimiter=delimiter))


def export_canvas(menace: Menace, out: Path, gradebook: Path, target: Path, *extra: str):
    return menace("export", "canvas", "--results", out, "--gradebook", gradebook, "--out", target, *extra)


def test_canvas_fills_only_the_assignment_column_matching_id_login_and_name(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    target = tmp_path / "import.csv"
    ran = export_canvas(menace, canvas_out, GRADEBOOK, target)
    assert ran.code == 0, ran.err
    assert f"filled the column {COLUMN!r} for 4 of 4" in ran.out
    before, after = rows(GRADEBOOK), rows(target)
    column = before[0].index(COLUMN)
    scores = {row[0]: row[column] for row in after[2:]}
    assert scores["Doe, Jane"] == "15" and scores["Lee, Jordan"] == "15"
    assert 0 < float(scores["Smith, Alex"]) < 15 and 0 < float(scores["Garcia, Maria"]) < 15
    assert scores["Nguyen, Bao"] == "12.00" and scores["Student, Test"] == ""  # no submission: as it was
    for old, new in zip(before, after, strict=True):
        assert old[:column] + old[column + 1 :] == new[:column] + new[column + 1 :]
    assert after[1] == before[1]  # the Points Possible row


def test_canvas_keeps_the_byte_order_mark_and_line_endings(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    target = tmp_path / "import.csv"
    export_canvas(menace, canvas_out, GRADEBOOK, target)
    raw = target.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfStudent,ID,")
    assert raw.count(b"\r\n") == GRADEBOOK.read_bytes().count(b"\r\n")


def test_canvas_reads_and_writes_a_semicolon_gradebook(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    target = tmp_path / "import.csv"
    assert export_canvas(menace, canvas_out, SEMICOLONS, target).code == 0
    after = rows(target, delimiter=";")
    assert after[2][5] == "15" and after[2][6] == "9,00"


def test_a_result_matching_no_student_is_reported_loudly_and_exits_1(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    book = tmp_path / "gradebook.csv"
    lines = GRADEBOOK.read_text(encoding="utf-8").splitlines(True)
    book.write_text("".join(line for line in lines if "Doe, Jane" not in line), encoding="utf-8")
    ran = export_canvas(menace, canvas_out, book, tmp_path / "import.csv")
    assert ran.code == 1
    assert "NOT EXPORTED: doejane (no gradebook row has Canvas ID 12345)" in ran.err
    assert "for 3 of 4" in ran.out


@pytest.mark.parametrize(
    "column", ["4567", COLUMN, "MENACE: Back into the box"], ids=["id", "header", "title"]
)
def test_canvas_column_can_be_named_by_id_header_or_title(
    canvas_out: Path, tmp_path: Path, menace: Menace, column: str
) -> None:
    target = tmp_path / "import.csv"
    assert export_canvas(menace, canvas_out, GRADEBOOK, target, "--column", column).code == 0
    assert rows(target)[2][5] == "15"


def test_canvas_unknown_column_id_lists_the_assignments(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    ran = export_canvas(menace, canvas_out, GRADEBOOK, tmp_path / "i.csv", "--column", "Lab (1111)")
    assert ran.code == 2 and "no assignment in the gradebook has the id 1111" in ran.err
    assert "Quiz 1: Noughts and crosses (4568)" in ran.err


def test_canvas_new_column_is_added_with_its_points_possible(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    target = tmp_path / "import.csv"
    ran = export_canvas(menace, canvas_out, GRADEBOOK, target, "--column", "MENACE bonus")
    assert ran.code == 0 and "new assignment" in ran.out
    after = rows(target)
    assert after[0][-1] == "MENACE bonus" and after[1][-1] == "15" and after[2][-1] == "15"


def test_canvas_scores_are_scaled_to_the_points_possible(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    book = tmp_path / "gradebook.csv"
    book.write_text(
        GRADEBOOK.read_text(encoding="utf-8").replace(",15.00,10.00,", ",30.00,10.00,"), encoding="utf-8"
    )
    target = tmp_path / "import.csv"
    ran = export_canvas(menace, canvas_out, book, target)
    assert ran.code == 0 and "scaled to the assignment's 30 points" in ran.out
    assert rows(target)[2][5] == "30"


def test_a_file_that_is_not_a_canvas_gradebook_is_exit_2(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    book = write(tmp_path, {"other.csv": "name,score\nada,3\n"}) / "other.csv"
    ran = export_canvas(menace, canvas_out, book, tmp_path / "i.csv")
    assert ran.code == 2 and "not a gradebook exported from Canvas" in ran.err


def test_canvas_refuses_to_overwrite_the_gradebook_itself(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    book = tmp_path / "gradebook.csv"
    book.write_bytes(GRADEBOOK.read_bytes())
    assert export_canvas(menace, canvas_out, book, book).code == 2
    assert book.read_bytes() == GRADEBOOK.read_bytes()


def test_moodle_worksheet_has_participant_ids_grades_and_html_feedback(
    moodle_out: Path, tmp_path: Path, menace: Menace
) -> None:
    target = tmp_path / "moodle.csv"
    ran = menace("export", "moodle", "--results", moodle_out, "--out", target)
    assert ran.code == 0 and "1 student has no Moodle participant id" in ran.out
    table = list(csv.DictReader(target.open(encoding="utf-8", newline="")))
    by_id = {row["Identifier"]: row for row in table}
    assert set(by_id) == {"Participant 424242", "Participant 515151", "pat"}
    kim = by_id["Participant 424242"]
    assert (kim["Full name"], kim["Grade"], kim["Maximum Grade"]) == ("Kim Lee", "100", "100")
    assert kim["Last modified (grade)"]
    assert "<h1>" in kim["Feedback comments"] and "<html" not in kim["Feedback comments"]


def test_moodle_grades_are_scaled_to_the_grade_items_maximum_and_it_says_so(
    moodle_out: Path, tmp_path: Path, menace: Menace
) -> None:
    target = tmp_path / "moodle.csv"
    ran = menace("export", "moodle", "--results", moodle_out, "--out", target)
    assert "SCALED from 15 points to 100" in ran.out and "--max-grade" in ran.out
    ola = next(
        r for r in csv.DictReader(target.open(encoding="utf-8", newline="")) if r["Full name"] == "Ola Nowak"
    )
    points = float(next(r for r in read_results_rows(moodle_out) if r["student"] == "Ola Nowak")["score"])
    assert float(ola["Grade"]) == pytest.approx(round(points / 15 * 100, 2))
    in_points = menace("export", "moodle", "--results", moodle_out, "--out", target, "--max-grade", "15")
    assert "SCALED" not in in_points.out and "in points, out of 15" in in_points.out
    kim = next(
        r for r in csv.DictReader(target.open(encoding="utf-8", newline="")) if r["Full name"] == "Kim Lee"
    )
    assert (kim["Grade"], kim["Maximum Grade"]) == ("15", "15")
    refused = menace("export", "moodle", "--results", moodle_out, "--out", target, "--max-grade", "0")
    assert refused.code == 2


def read_results_rows(out: Path) -> list[dict[str, str]]:
    return list(csv.DictReader((out / "grades.csv").open(encoding="utf-8", newline="")))


def with_grades(tmp_path: Path, grades: dict[str, str]) -> Path:
    """The gradebook fixture with grades already in the assignment's column."""
    rows_ = rows(GRADEBOOK)
    column = rows_[0].index(COLUMN)
    for row in rows_[2:]:
        if row[0] in grades:
            row[column] = grades[row[0]]
    book = tmp_path / "gradebook.csv"
    with book.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows_)
    return book


def test_canvas_keeps_a_different_grade_already_there_and_lists_who(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    book = with_grades(tmp_path, {"Doe, Jane": "9.00", "Lee, Jordan": "15.00", "Smith, Alex": "EX"})
    target = tmp_path / "import.csv"
    ran = export_canvas(menace, canvas_out, book, target)
    assert ran.code == 1
    assert "2 students already have a different grade" in ran.err and "--overwrite" in ran.err
    assert "doejane: 9.00 kept, 15 not written" in ran.err and "smithalex: EX kept" in ran.err
    assert "jlee" not in ran.err  # the same grade: nothing to say
    column = rows(book)[0].index(COLUMN)
    scores = {row[0]: row[column] for row in rows(target)[2:]}
    assert (scores["Doe, Jane"], scores["Smith, Alex"], scores["Lee, Jordan"]) == ("9.00", "EX", "15")


def test_canvas_says_one_student_already_has_a_different_grade_in_the_singular(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    book = with_grades(tmp_path, {"Doe, Jane": "9.00"})
    ran = export_canvas(menace, canvas_out, book, tmp_path / "import.csv")
    assert ran.code == 1
    assert f"menace: 1 student already has a different grade in {COLUMN!r}" in ran.err
    assert "students" not in ran.err and "doejane: 9.00 kept" in ran.err


def test_canvas_overwrite_replaces_them_without_a_word(
    canvas_out: Path, tmp_path: Path, menace: Menace
) -> None:
    book = with_grades(tmp_path, {"Doe, Jane": "9.00"})
    target = tmp_path / "import.csv"
    ran = export_canvas(menace, canvas_out, book, target, "--overwrite")
    assert ran.code == 0 and "different grade" not in ran.err
    column = rows(book)[0].index(COLUMN)
    assert {row[0]: row[column] for row in rows(target)[2:]}["Doe, Jane"] == "15"


def test_plain_csv_has_one_row_per_student(moodle_out: Path, tmp_path: Path, menace: Menace) -> None:
    target = tmp_path / "plain.csv"
    assert menace("export", "csv", "--results", moodle_out, "--out", target).code == 0
    table = list(csv.DictReader(target.open(encoding="utf-8", newline="")))
    assert [r["student"] for r in table] == ["Kim Lee", "Ola Nowak", "pat"]
    assert table[0]["moodle_id"] == "424242" and table[0]["percent"] == "100.0"


def test_exporting_from_a_folder_without_results_is_exit_2(tmp_path: Path, menace: Menace) -> None:
    ran = menace("export", "csv", "--results", tmp_path, "--out", tmp_path / "plain.csv")
    assert ran.code == 2 and "run menace grade" in ran.err
