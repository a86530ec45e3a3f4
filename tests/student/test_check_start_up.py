"""What ``menace check`` loads before it answers: only what this check needs (issue 14, speed).

How long a check takes is measured in ``bench/bench_check.py``, never asserted here; what is
asserted is which packages a check imports, which decides most of that time. A student's
kit has no hidden tests, so hypothesis (about a third of a course check's start-up) is not
loaded at all. Where the hidden tests are, hypothesis loads only to generate a property
test's examples the first time (without its plugins: trio's plugin alone pulled in trio and
pytest); every later check replays the stored examples without it. Run in a fresh
interpreter, as a student's ``menace check`` runs.

Issue 26 (start-up): a ``.py`` file's check never loads the notebook reader, nor the
service, grading, export or LMS stacks, nor a module only a rare answer needs (difflib for
a misspelt name, html for an html report, csv for a spreadsheet); and the warm checker's
client, which runs in the student's process for every warm check, finds its socket with
``os`` alone, without pathlib, click or the grader.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from menace_course.course import find_course
from menace_course.kit import fill_public_course
from tests.support import REPO

CHECK_THEN_LIST_MODULES = """
import sys
from menace_course.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    print("exit", done.code)
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
print(" ".join(sorted(sys.modules)))
"""
RIGHT = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")


def packages_loaded_by_a_check(tmp_path: Path, *args: str) -> tuple[str, set[str], str]:
    """The check's exit line, the top-level packages it loaded, and its feedback."""
    exit_line, packages, _, feedback = loaded_by_a_check(tmp_path, *args)
    return exit_line, packages, feedback


def loaded_by_a_check(tmp_path: Path, *args: str) -> tuple[str, set[str], set[str], str]:
    """The check's exit line, the top-level packages and the modules it loaded, and its feedback."""
    (tmp_path / "after_game.py").write_text(RIGHT, encoding="utf-8")
    cache = tmp_path / "cache"  # a new grader's: no example is stored yet
    done = subprocess.run(
        [sys.executable, "-c", CHECK_THEN_LIST_MODULES, "check", "after_game.py", "--sandbox=process", *args],
        cwd=tmp_path,
        env={**os.environ, "MENACE_CACHE_DIR": str(cache)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    *feedback, exit_line, packages, modules = done.stdout.strip().splitlines()
    return exit_line, set(packages.split()), set(modules.split()), "\n".join(feedback)


def test_a_check_with_the_hidden_tests_loads_no_hypothesis_plugin_nor_pytest(tmp_path):
    exit_line, loaded, _ = packages_loaded_by_a_check(tmp_path, "--course", str(REPO))
    assert exit_line == "exit 0"
    assert "hypothesis" in loaded  # the first check generates the property tests' examples
    assert not loaded & {"trio", "pytest", "_pytest", "matplotlib", "rich", "flask", "sqlalchemy"}


def test_a_second_check_replays_the_stored_examples_without_hypothesis(tmp_path):
    first_exit, first_loaded, first_feedback = packages_loaded_by_a_check(tmp_path, "--course", str(REPO))
    exit_line, loaded, feedback = packages_loaded_by_a_check(tmp_path, "--course", str(REPO))
    assert "hypothesis" in first_loaded and "hypothesis" not in loaded
    assert (exit_line, feedback) == (first_exit, first_feedback) == ("exit 0", first_feedback)
    assert "passes all 15 checks" in feedback


def test_a_kit_check_with_no_hidden_tests_loads_no_hypothesis_at_all(tmp_path):
    kit = tmp_path / "kit"
    fill_public_course(find_course(REPO), kit)  # what the kit's wheel carries as its course
    exit_line, loaded, _ = packages_loaded_by_a_check(tmp_path, "--course", str(kit))
    assert exit_line == "exit 3"  # the examples pass; the hidden checks did not run
    assert not loaded & {"hypothesis", "trio", "pytest", "_pytest", "matplotlib", "rich"}


#: What a correct ``.py`` answer's check has no use for (issue 26: each is start-up time).
NOT_FOR_A_PY_CHECK = {
    "menace_course.checking.notebook",  # the notebook reader: a notebook's check only
    "menace_course.checking.ipython",
    "difflib",  # a misspelt function's name only
    "html",  # an html report only
    "csv",  # a spreadsheet only
}
#: The stacks of other commands: the service, grading a class, the exports and autograders.
OTHER_STACKS = (
    "menace_course.service",
    "menace_course.grading",
    "menace_course.exports",
    "menace_course.autograders",
)


def test_checking_a_py_file_never_loads_the_notebook_reader_nor_other_commands_stacks(tmp_path):
    loaded_by_a_check(tmp_path, "--course", str(REPO))  # the first stores the examples (hypothesis)
    exit_line, _, modules, feedback = loaded_by_a_check(tmp_path, "--course", str(REPO))
    assert exit_line == "exit 0" and "passes all 15 checks" in feedback
    assert "menace_course.checking.pipeline" in modules and "jinja2" in modules  # it did check, in text
    assert modules & NOT_FOR_A_PY_CHECK == set()
    assert {m for m in modules if m.startswith(OTHER_STACKS)} == set()


def test_a_json_check_loads_no_templates_engine(tmp_path):
    loaded_by_a_check(tmp_path, "--course", str(REPO), "--format", "json")
    exit_line, _, modules, _ = loaded_by_a_check(tmp_path, "--course", str(REPO), "--format", "json")
    assert exit_line == "exit 0"
    assert "jinja2" not in modules and "menace_course.feedback" not in modules


def test_checking_a_notebook_still_loads_its_reader(tmp_path):
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": RIGHT, "outputs": [], "execution_count": None}
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "answer.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", CHECK_THEN_LIST_MODULES, "check", "answer.ipynb", "--sandbox=process"],
        cwd=tmp_path,
        env={**os.environ, "MENACE_CACHE_DIR": str(tmp_path / "cache")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    *_, exit_line, _, modules = done.stdout.strip().splitlines()
    assert exit_line == "exit 0", done.stdout + done.stderr
    assert "menace_course.checking.notebook" in modules.split()


#: The warm checker's client, as ``menace check`` runs it before it hands the file over.
WARM_CLIENT_THEN_LIST_MODULES = """
import sys
before = set(sys.modules)
from menace_course.warm import client, messages
from menace_course.warm.stamp import socket_file, socket_path, stamp
found = socket_file(stamp())
loaded = sorted(set(sys.modules) - before)
assert found is not None and str(socket_path(stamp())) == found  # the warm checker's way, the same
print(" ".join(loaded))
"""


def test_the_warm_checkers_client_finds_its_socket_without_pathlib_click_or_the_grader(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", WARM_CLIENT_THEN_LIST_MODULES],
        env={**os.environ, "MENACE_CACHE_DIR": str(tmp_path / "cache")},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded = set(done.stdout.split())
    assert "menace_course.warm.client" in loaded
    heavy = {"pathlib", "socket", "click", "typing", "menace_course.cli", "menace_course.models"}
    assert loaded & heavy == set()
    assert {m for m in loaded if m.startswith(("menace_course.checking", "menace_course.sandbox"))} == set()


def test_the_spreadsheet_quoting_written_out_is_csvs_quote_all():
    import csv

    from menace_course.safe_text import CSV_QUOTING

    assert CSV_QUOTING == csv.QUOTE_ALL
