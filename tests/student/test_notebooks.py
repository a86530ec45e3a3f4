"""A notebook as a student keeps one: lines named by cell, and exploratory cells that fail.

In Jupyter a cell that raises stops at that line, and the other cells still run; the
checker does the same, says so, and a correct function keeps its marks.
"""

from __future__ import annotations

import json

import pytest

from menace_course.checking.loader import read_submission
from menace_course.checking.notebook import notebook_code
from tests.conftest import check_json, run_menace

pytestmark = pytest.mark.bwrap

RIGHT = """def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return new
"""


def notebook(*cells: tuple[str, str]) -> str:
    return json.dumps(
        {
            "cells": [
                {
                    "cell_type": kind,
                    "metadata": {},
                    "source": source,
                    **({"outputs": []} if kind == "code" else {}),
                }
                for kind, source in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def test_cells_are_counted_from_the_top_markdown_cells_too():
    code, cells = notebook_code(notebook(("markdown", "# Mine"), ("code", "a = 1\nb = 2"), ("code", "c = 3")))
    assert code.splitlines()[cells.spans[1][0] - 1] == "c = 3"
    assert cells.locate(1) == (2, 1) and cells.locate(2) == (2, 2) and cells.locate(4) == (3, 1)
    assert cells.locate(3) is None  # the blank line between two cells


def test_a_name_error_in_an_exploratory_cell_does_not_zero_a_correct_function(tmp_path):
    path = tmp_path / "work.ipynb"
    path.write_text(
        notebook(
            ("markdown", "# Back into the box"),
            ("code", RIGHT),
            ("code", "print('trying it')\nafter_game(beads, 4, 'win')\nprint('never printed')"),
            ("code", "after_game([4] * 9, 0, 'loss')"),
        )
    )
    code, report = check_json(path)
    assert code == 0 and report["passed"] and report["score"] == report["max_score"]
    assert report["notices"][0] == (
        "cell 3, line 2 stopped with NameError (name 'beads' is not defined) when the checker ran "
        "the cells from the top; the rest of that cell was left out, and the other cells were checked."
    )
    assert "Restart & Run All" in report["notices"][-1] and len(report["notices"]) == 2
    text = run_menace("check", str(path)).stdout
    assert "cell 3, line 2 stopped with NameError" in text and "__main__" not in text


def test_statements_before_the_failing_line_of_a_cell_still_count(tmp_path):
    path = tmp_path / "work.ipynb"
    path.write_text(notebook(("code", RIGHT + "\nafter_game(beads, 4, 'win')\n")))
    code, report = check_json(path)
    assert code == 0 and report["notices"][0].startswith("cell 1, line 6 stopped with NameError")


def test_a_cell_that_stops_before_the_function_is_defined_is_named_and_the_function_is_missing(tmp_path):
    path = tmp_path / "work.ipynb"
    path.write_text(notebook(("code", "1 / 0\n" + RIGHT)))
    code, report = check_json(path, "--challenge", "after_game")
    assert code == 1 and report["status"] == "no_function"
    assert report["notices"][0].startswith("cell 1, line 1 stopped with ZeroDivisionError")


def test_a_traceback_names_the_cell_and_the_line_in_it(tmp_path):
    path = tmp_path / "work.ipynb"
    helper = "def helper(beads):\n    return beads[20]\n"
    path.write_text(
        notebook(
            ("markdown", "hi"),
            ("code", "import math"),
            ("code", helper),
            ("code", RIGHT.replace("new = list(beads)", "new = helper(beads)")),
        )
    )
    code, report = check_json(path)
    assert code == 1
    frames = report["tests"][0]["detail"]["traceback"]
    assert [(f["cell"], f["line"], f["function"]) for f in frames] == [(4, 2, "after_game"), (3, 2, "helper")]
    text = run_menace("check", str(path)).stdout
    assert "cell 4, line 2, in after_game: new = helper(beads)" in text
    assert "cell 3, line 2, in helper: return beads[20]" in text


def test_a_syntax_error_names_the_cell_and_puts_the_caret_under_it(tmp_path):
    path = tmp_path / "work.ipynb"
    path.write_text(
        notebook(
            ("markdown", "hi"),
            ("code", "import math"),
            ("code", "def after_game(beads, square, result)\n    return beads\n"),
        )
    )
    text = run_menace("check", str(path)).stdout
    lines = text.splitlines()
    where = next(i for i, line in enumerate(lines) if "cell 3, line 1: def after_game" in line)
    assert lines[where + 1].index("^") == lines[where].index(")") + 1
    assert "Python reads the whole notebook" in text


def test_a_loop_in_a_cell_gets_advice_for_a_notebook_not_for_a_file(tmp_path):
    path = tmp_path / "work.ipynb"
    path.write_text(notebook(("code", RIGHT), ("code", "while True:\n    pass")))
    done = run_menace("check", str(path))
    assert done.returncode == 1
    assert "runs the notebook's code cells once, from the top" in done.stdout
    assert "__main__" not in done.stdout


def test_a_py_file_keeps_pythons_rule_an_error_while_loading_stops_it(tmp_path):
    path = tmp_path / "after_game.py"
    path.write_text(RIGHT + "after_game(beads, 4, 'win')\n")
    code, report = check_json(path)
    assert code == 1 and report["status"] == "load_error"
    assert read_submission(path).cells is None
