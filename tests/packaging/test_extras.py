"""A command whose optional part is not installed says what to install, in one line, exit 2.

Each case runs the real ``menace`` in a fresh interpreter where the extra's modules cannot
be imported (an import hook refuses them, as a base install without the extra would), so
what is checked is what a user of ``pip install menace-course`` sees. A base install in a
real fresh environment is tried in ``tests/kit/test_kit_install.py`` (slow).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from menace_course.course import find_course
from menace_course.extras import EXTRAS
from menace_course.kit import fill_public_course
from tests.support import REPO

#: ``menace ARGS`` with the top-level modules in MENACE_TEST_BLOCK unimportable.
WITHOUT = """
import sys

class Refuse:
    blocked = set(sys.argv[1].split(","))

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Refuse())
if sys.argv[2] == "--late":  # skip the up-front checks: the import itself fails
    import menace_course.extras
    menace_course.extras.require = lambda extra, purpose: None
    del sys.argv[2]
from menace_course.cli import main
sys.argv[1:] = sys.argv[2:]
main()
"""
RIGHT = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")


def menace_without(
    modules: tuple[str, ...], *args: str, cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    """Run ``menace ARGS`` where ``modules`` are not installed."""
    return subprocess.run(
        [sys.executable, "-c", WITHOUT, ",".join(modules), *args],
        cwd=cwd,
        env={**os.environ, "MENACE_WARM": "off"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The error's only line (asserting there is one, and no traceback)."""
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize(
    "args",
    [
        ("serve",),
        ("serve", "--help"),
        ("users", "list"),
        ("lti", "tool-config", "--url", "https://menace.example.edu"),
        ("worker", "--db", "postgresql:///x"),
    ],
)
def test_without_the_service_extra_a_service_command_says_install_menace_course_service(args):
    done = menace_without(EXTRAS["service"], *args)
    assert done.returncode == 2
    line = one_line(done)
    assert line.startswith(f"menace: menace {args[0]} needs flask, which is not installed")
    assert "install menace-course[service]" in line


def test_help_without_the_service_extra_leaves_out_its_commands_and_says_what_to_install():
    done = menace_without(EXTRAS["service"], "--help")
    assert done.returncode == 0
    commands = done.stdout.split("Commands:")[1].split("Not installed here:")[0]
    listed = {line.split()[0] for line in commands.strip().splitlines()}
    assert "check" in listed and not listed & {"serve", "users", "lti", "worker"}
    assert "serve, users, lti, worker  install menace-course[service]" in done.stdout


def test_help_with_every_extra_lists_every_command_and_nothing_as_not_installed():
    done = menace_without(("no_such_module_at_all",), "--help")
    assert "serve" in done.stdout and "Not installed here" not in done.stdout


def test_a_rewards_chart_without_matplotlib_says_install_menace_course_plots_before_running():
    done = menace_without(("matplotlib",), "experiment", "rewards", "--picture", "chart.png", "--runs", "1")
    assert done.returncode == 2
    assert done.stdout == "", "the runs did not start"
    assert one_line(done) == (
        "menace: menace experiment rewards --picture needs matplotlib, which is not installed: "
        'install menace-course[plots] (pip install "menace-course[plots]")'
    )


def test_a_late_import_of_a_missing_extra_is_the_same_one_line_not_a_traceback(tmp_path):
    done = menace_without(
        ("matplotlib",), "--late", "experiment", "rewards", "--picture", "c.png", "--runs", "1", cwd=tmp_path
    )
    assert done.returncode == 2
    line = one_line(done)
    assert "menace experiment needs matplotlib" in line and "install menace-course[plots]" in line
    assert not (tmp_path / "c.png").exists()


def test_the_steps_picture_needs_no_extra(tmp_path):
    done = menace_without(("matplotlib",), "step", "3", "--picture", "games.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "games.png").read_bytes().startswith(b"\x89PNG")


def test_grading_without_hypothesis_says_install_menace_course_grader(tmp_path):
    done = menace_without(("hypothesis",), "grade", str(tmp_path), "--challenge", "after_game", "--out", "o")
    assert done.returncode == 2
    assert "menace grade needs hypothesis" in one_line(done)
    assert "install menace-course[grader]" in done.stderr


def test_a_check_with_the_hidden_tests_but_without_hypothesis_says_install_menace_course_grader(tmp_path):
    (tmp_path / "after_game.py").write_text(RIGHT, encoding="utf-8")
    done = menace_without(
        ("hypothesis",), "check", "after_game.py", "--course", str(REPO), "--sandbox", "process", cwd=tmp_path
    )
    assert done.returncode == 2
    assert one_line(done) == (
        "menace: running the hidden tests of after_game needs hypothesis, which is not installed: "
        'install menace-course[grader] (pip install "menace-course[grader]")'
    )


def test_a_kits_check_needs_neither_hypothesis_nor_matplotlib_nor_pytest(tmp_path):
    kit = tmp_path / "kit"
    fill_public_course(find_course(REPO), kit)
    (tmp_path / "after_game.py").write_text(RIGHT, encoding="utf-8")
    blocked = ("hypothesis", "matplotlib", "pytest", "_pytest", *EXTRAS["service"])
    done = menace_without(
        blocked, "check", "after_game.py", "--course", str(kit), "--sandbox", "process", cwd=tmp_path
    )
    assert done.returncode == 3, done.stdout + done.stderr  # the examples pass; hidden ones run at grading
    assert "The 3 examples pass" in done.stdout


def test_pytest_is_not_needed_to_grade_hidden_tests(tmp_path):
    (tmp_path / "after_game.py").write_text(RIGHT, encoding="utf-8")
    done = menace_without(
        ("pytest", "_pytest"),
        "check",
        "after_game.py",
        "--course",
        str(REPO),
        "--sandbox",
        "process",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_package_never_imports_pytest():
    importers = []
    for path in sorted((REPO / "menace_course").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(name.partition(".")[0] in ("pytest", "_pytest") for name in names):
                importers.append(str(path.relative_to(REPO)))
    assert importers == []
