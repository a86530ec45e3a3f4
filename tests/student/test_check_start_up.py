"""What ``menace check`` loads before it answers: only what this check needs (issue 14, speed).

How long a check takes is measured in ``bench/bench_check.py``, never asserted here; what is
asserted is which packages a check imports, which decides most of that time. A student's
kit has no hidden tests, so hypothesis (about a third of a course check's start-up) is not
loaded at all. Where the hidden tests are, hypothesis loads only to generate a property
test's examples the first time (without its plugins: trio's plugin alone pulled in trio and
pytest); every later check replays the stored examples without it. Run in a fresh
interpreter, as a student's ``menace check`` runs.
"""

from __future__ import annotations

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
"""
RIGHT = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")


def packages_loaded_by_a_check(tmp_path: Path, *args: str) -> tuple[str, set[str], str]:
    """The check's exit line, the top-level packages it loaded, and its feedback."""
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
    *feedback, exit_line, modules = done.stdout.strip().splitlines()
    return exit_line, set(modules.split()), "\n".join(feedback)


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
