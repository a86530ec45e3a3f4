"""Nothing a submission prints, raises or is called can keep ``results.json`` from being written.

Gradescope shows a submission with no ``results.json`` as an autograder failure, so the
file must be written whatever text reaches it: lone surrogates (which no UTF-8 file can
hold), NUL and terminal escapes, bidirectional overrides.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from menace_course.autograders import gradescope as gradescope_autograder
from menace_course.exports.gradescope_results import SCHEMA
from tests.support import REPO

HOSTILE = "\ud800 lone \udcfc \x00 nul \x1b[2J\x1b[31m escape \u202e override \x7f\x9f end"


def written(root: Path) -> dict:
    raw = (root / "results" / "results.json").read_bytes()
    results = json.loads(raw.decode("utf-8"))  # strict UTF-8: a lone surrogate would not decode
    jsonschema.validate(results, json.loads(SCHEMA.read_text()))
    return results


def test_results_with_every_kind_of_hostile_text_are_written_as_valid_utf8_json(tmp_path, monkeypatch):
    (tmp_path / "submission").mkdir()

    def hostile(*args):
        return {
            "score": 0.0,
            "output": HOSTILE,
            "tests": [{"name": HOSTILE, "score": 0.0, "max_score": 1.0, "output": HOSTILE}],
            "extra_data": {"menace": {"file": HOSTILE, HOSTILE: [HOSTILE]}},
        }

    monkeypatch.setattr(gradescope_autograder, "grade", hostile)
    monkeypatch.setenv("AUTOGRADER_ROOT", str(tmp_path))
    assert gradescope_autograder.main(["--challenge", "after_game"]) == 0
    results = written(tmp_path)
    assert results["output"].startswith("\\ud800 lone \\udcfc \x00 nul \x1b[2J")  # kept, as escapes


@pytest.mark.slow
def test_a_submission_that_raises_and_prints_hostile_text_under_a_hostile_name_gets_its_results(
    tmp_path, monkeypatch
):
    import menace_course.course

    submission = tmp_path / "submission"
    submission.mkdir()
    name = os.fsdecode(b"after_game\xfc.py")  # a Latin-1 name from a Windows zip
    (submission / name).write_text(
        f"print({HOSTILE!r})\n"
        "def after_game(beads, square, result):\n"
        f"    print({HOSTILE!r})\n"
        f"    raise ValueError({HOSTILE!r})\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(menace_course.course, "BUNDLED_COURSE", REPO)  # the instructor's course
    monkeypatch.setenv("AUTOGRADER_ROOT", str(tmp_path))
    assert gradescope_autograder.main(["--challenge", "after_game", "--sandbox", "process"]) == 0
    results = written(tmp_path)
    assert results["score"] == 0 and results["extra_data"]["menace"]["status"] == "checked"
    assert "the fault is in the grader" not in results["output"]
