"""The kit installed as a student installs it: a fresh environment, dependencies and all.

Unlike ``test_kit.py`` (which lends the kit this machine's packages), this environment has
nothing but what ``pip install <kit wheel>`` brings, from pip's cache or index: the small
base set. Its ``--version`` says it is a kit, its ``--help`` leaves out the service, and
``menace serve`` says what to install instead of a traceback. How big and how fast this
install is lives in ``bench/bench_install.py``.
"""

from __future__ import annotations

import os
import subprocess
import venv
from pathlib import Path

import pytest

from menace_course import __version__
from menace_course.course import find_course
from menace_course.kit import build_kit
from tests.conftest import REPO

RIGHT = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")
#: What a kit brings: the base dependencies and theirs (rich: markdown-it-py, mdurl, pygments).
KIT_DISTRIBUTIONS = {
    "menace-course",
    "click",
    "rich",
    "jinja2",
    "markupsafe",
    "markdown-it-py",
    "mdurl",
    "pygments",
}


@pytest.fixture(scope="module")
def student_python(tmp_path_factory) -> Path:
    """A fresh venv (no system packages) with the kit pip-installed into it, dependencies too."""
    kit = build_kit(find_course(REPO), tmp_path_factory.mktemp("kit"))
    env_dir = tmp_path_factory.mktemp("student-venv")
    venv.EnvBuilder(system_site_packages=False, with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    done = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", kit.wheel],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return python


def menace(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The kit's ``menace`` console script, run from ``cwd``."""
    script = python.parent / "menace"
    env = {**os.environ, "MENACE_WARM": "off"}
    return subprocess.run([script, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def distributions(python: Path) -> set[str]:
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line.split("==")[0].lower() for line in listed.split()} - {"pip", "setuptools", "wheel"}


@pytest.mark.slow
def test_a_kit_installs_the_small_set_only_without_hypothesis_matplotlib_pytest_or_the_service(
    student_python,
):
    assert distributions(student_python) == KIT_DISTRIBUTIONS


@pytest.mark.slow
def test_a_kits_version_says_it_is_a_kit(student_python, tmp_path):
    for option in ("--version", "-V"):
        done = menace(student_python, option, cwd=tmp_path)
        assert done.returncode == 0
        assert done.stdout.splitlines()[0] == (
            f"menace {__version__}+kit (a student kit: the public course; "
            "hidden checks run when your instructor grades)"
        )


@pytest.mark.slow
def test_a_kits_menace_serve_says_install_menace_course_service_with_exit_2(student_python, tmp_path):
    for args in (["serve"], ["users", "list"], ["lti", "tool-config"], ["worker"]):
        done = menace(student_python, *args, cwd=tmp_path)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
        assert done.stderr.strip().splitlines() == [
            f"menace: menace {args[0]} needs flask, which is not installed: "
            'install menace-course[service] (pip install "menace-course[service]")'
        ]


@pytest.mark.slow
def test_a_kits_help_leaves_out_the_service_and_explains_why(student_python, tmp_path):
    done = menace(student_python, "--help", cwd=tmp_path)
    commands = done.stdout.split("Commands:")[1].split("Not installed here:")[0]
    assert "check" in commands and "serve" not in commands and "worker" not in commands
    assert "install menace-course[service]" in done.stdout


@pytest.mark.slow
def test_a_kit_checks_a_file_with_its_small_install(student_python, tmp_path):
    (tmp_path / "after_game.py").write_text(RIGHT, encoding="utf-8")
    done = menace(student_python, "check", "after_game.py", cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr  # examples pass; hidden checks at grading
    assert "The 3 examples pass" in done.stdout
