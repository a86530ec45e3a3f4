"""Reading a student's file never runs it, and says plainly what is wrong with it."""

import json

import pytest

from menace_course.checking.loader import MAX_BYTES, read_submission
from menace_course.errors import UsageError
from menace_course.models import Status

GOOD = "def after_game(beads, square, result):\n    return list(beads)\n"


def test_a_python_file_is_parsed_and_its_functions_listed(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(GOOD + "x = 1\nclass K: pass\n")
    source = read_submission(path)
    assert source.status is Status.CHECKED
    assert {"after_game", "x", "K"} <= source.defined


def test_a_missing_file_or_a_folder_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        read_submission(tmp_path / "nope.py")
    with pytest.raises(UsageError, match="folder"):
        read_submission(tmp_path)


def test_a_syntax_error_points_at_the_line_and_column(tmp_path):
    path = tmp_path / "s.py"
    path.write_text("x = 1\ndef f(a)\n    return a\n")
    source = read_submission(path)
    assert source.status is Status.SYNTAX_ERROR
    line = source.problem.detail.traceback[0]
    assert (line.line, line.code) == (2, "def f(a)") and line.column > 0


def test_a_windows_1252_file_is_read_with_a_notice(tmp_path):
    path = tmp_path / "w.py"
    path.write_bytes(("# café\n" + GOOD).encode("cp1252"))
    source = read_submission(path)
    assert source.status is Status.CHECKED and "after_game" in source.defined
    assert "UTF-8" in source.notices[0]


def test_utf16_with_a_bom_and_utf8_with_a_bom_are_read(tmp_path):
    (tmp_path / "u16.py").write_bytes(GOOD.encode("utf-16"))
    (tmp_path / "u8.py").write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    assert read_submission(tmp_path / "u16.py").status is Status.CHECKED
    assert read_submission(tmp_path / "u8.py").text.startswith("def")


def test_binary_and_oversized_files_are_unreadable_not_errors(tmp_path):
    (tmp_path / "bin.py").write_bytes(b"\x7fELF\x00\x00\x01")
    (tmp_path / "big.py").write_text("#" * (MAX_BYTES + 10))
    assert read_submission(tmp_path / "bin.py").status is Status.UNREADABLE
    big = read_submission(tmp_path / "big.py")
    assert big.status is Status.UNREADABLE and "larger" in big.problem.message


def test_an_empty_file_reads_as_defining_nothing(tmp_path):
    (tmp_path / "e.py").write_text("")
    source = read_submission(tmp_path / "e.py")
    assert source.status is Status.CHECKED and not source.defined


def test_a_notebooks_code_cells_are_the_submission_and_magics_are_left_out_with_a_notice(tmp_path):
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": ["# My answer"]},
            {"cell_type": "code", "source": ["%matplotlib inline\n", "!pip install nothing\n"]},
            {"cell_type": "code", "source": GOOD},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(notebook))
    source = read_submission(path)
    assert source.status is Status.CHECKED and "after_game" in source.defined
    assert "%matplotlib" not in source.text and "# My answer" not in source.text
    assert source.notices[0].startswith("cell 2, line 1: the IPython magic %matplotlib is IPython's")


def test_a_broken_notebook_is_unreadable(tmp_path):
    (tmp_path / "n.ipynb").write_text("{not json")
    assert read_submission(tmp_path / "n.ipynb").status is Status.UNREADABLE


def test_nbgrader_test_and_locked_cells_are_not_part_of_the_answer(tmp_path):
    def cell(source, **marks):
        return {"cell_type": "code", "source": source, "metadata": {"nbgrader": marks} if marks else {}}

    notebook = {
        "cells": [
            cell(GOOD, solution=True, grade=False, grade_id="answer"),
            cell("assert after_game([0] * 9, 0, 'win')[0] == 3\n", grade=True, locked=True, points=1),
            cell("import checks_helper\n", locked=True),
            cell("print(after_game([4] * 9, 0, 'win'))\n"),
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "ps1.ipynb"
    path.write_text(json.dumps(notebook))
    source = read_submission(path)
    assert "def after_game" in source.text and "print(after_game" in source.text
    assert "assert after_game" not in source.text and "checks_helper" not in source.text


def test_a_syntax_error_shows_the_submissions_own_line_never_a_file_of_the_same_name(tmp_path, monkeypatch):
    """The exploit: CPython shows a syntax error's line by reading the file the parser was told
    it parses, from the current folder. An upload named like a file in the grader's folder, with
    its error on line N, would have been shown line N of that file, the grader's secret."""
    from menace_course.checking.loader import read_bytes

    (tmp_path / "settings.toml").write_text('token = "instructor-secret"\nsecond = "also-secret"\n')
    monkeypatch.chdir(tmp_path)
    for line in (1, 2):
        upload = "x = 1\n" * (line - 1) + "def f(a)\n    return a\n"
        source = read_bytes("settings.toml", upload.encode())
        assert source.status is Status.SYNTAX_ERROR
        shown = source.problem.detail.traceback[0]
        assert (shown.line, shown.code) == (line, "def f(a)")
        assert "secret" not in repr(source)


def test_a_notebooks_syntax_error_shows_the_cells_line_not_the_notebooks_json(tmp_path, monkeypatch):
    """Checked from the notebook's own folder (as a student does), the line shown is the cell's."""
    from tests.student.test_notebooks import notebook

    path = tmp_path / "only.ipynb"
    path.write_text(notebook(("code", "def after_game(beads, square, result)\n    return beads\n")))
    monkeypatch.chdir(tmp_path)
    source = read_submission(path)
    shown = source.problem.detail.traceback[0]
    assert (shown.line, shown.code) == (1, "def after_game(beads, square, result)")
