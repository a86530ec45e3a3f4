"""Helpers for the tests of ``menace grade`` and ``menace export``: answers, a class, running menace.

(Kept out of ``conftest.py`` so that test modules import it by a name no other folder uses.)
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support import Ran

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"

RIGHT = """\
def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + {"win": 3, "draw": 1, "loss": -1}[result])
    return new
"""
NO_FLOOR = """\
def after_game(beads, square, result):
    new = list(beads)
    new[square] += {"win": 3, "draw": 1, "loss": -1}[result]
    return new
"""
CHANGES_INPUT = """\
def after_game(beads, square, result):
    beads[square] = max(0, beads[square] + {"win": 3, "draw": 1, "loss": -1}[result])
    return beads
"""
SYNTAX_ERROR = "def after_game(beads, square, result)\n    return beads\n"
LOOPS = "def after_game(beads, square, result):\n    while True:\n        pass\n"
LYING_EQUALS = """\
class Anything(list):
    def __eq__(self, other):
        return True

def after_game(beads, square, result):
    return Anything(beads)
"""
READS_THE_REFERENCE = f"""\
exec(open({str(REPO / "reference" / "after_game.py")!r}).read())
"""


def notebook(code: str) -> str:
    """A minimal Jupyter notebook with one code cell."""
    cell = {"cell_type": "code", "metadata": {}, "source": code, "outputs": [], "execution_count": None}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def write(folder: Path, files: dict[str, str | bytes | None]) -> Path:
    """Make ``folder`` with ``files`` (relative path -> text, bytes, or None for an empty folder)."""
    for name, content in files.items():
        path = folder / name
        if content is None:
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


#: A small class with every kind of entry, and the status each student must get.
CLASS: dict[str, str | bytes | None] = {
    "ada.py": RIGHT,
    "bo.py": NO_FLOOR,
    "cy/after_game.py": CHANGES_INPUT,
    "cy/notes.txt": "my notes",
    "dee.ipynb": notebook(RIGHT),
    "eve.py": SYNTAX_ERROR,
    "fay/": None,
    "gus.py": bytes(range(256)) * 8,
    "hal.py": LYING_EQUALS,
    "ivy.py": READS_THE_REFERENCE,
    "doejane_12345_67890_after_game.py": RIGHT,
    "Kim Lee_424242_assignsubmission_file_/menace.py": NO_FLOOR,
    "lou.docx": "not python",
    "__MACOSX/._ada.py": "resource fork",
    ".DS_Store": "finder",
}
EXPECTED_STATUS = {
    "ada": "passed",
    "bo": "failed",
    "cy": "failed",
    "dee": "passed",
    "eve": "syntax_error",
    "fay": "empty",
    "gus": "unreadable",
    "hal": "failed",
    "ivy": "load_error",
    "doejane": "passed",
    "Kim Lee": "failed",
    "lou": "no_python_file",
}


def start_menace(*args: str | Path) -> subprocess.Popen[str]:
    """Start the real ``menace`` in its own process group (so a test can kill all of it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "menace_course", *map(str, args)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def read_grades(out: Path) -> dict[str, dict[str, str]]:
    """``grades.csv`` as {student: row}; fails the test if a student has two rows."""
    with (out / "grades.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    students = [r["student"] for r in rows]
    assert len(students) == len(set(students)), f"a student has several rows: {students}"
    return {r["student"]: r for r in rows}


def read_records(out: Path) -> dict[str, dict]:
    """``results.jsonl`` as {student: record}."""
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["grading"]["student"]: json.loads(line) for line in lines}


def without_timings(value: object) -> object:
    """A record with its timings taken out (they differ from run to run, nothing else may)."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


Menace = Callable[..., Ran]
