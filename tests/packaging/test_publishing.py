"""What a user of the published package notices: its version, licence, metadata and pins.

The wheel is built here from this checkout with hatchling (as ``pip install .`` or
``python -m build`` would), and read as pip would read it.
"""

from __future__ import annotations

import email
import importlib.metadata
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from menace_course import __version__, catalog
from menace_course.checking.pipeline import check_submission
from menace_course.checking.replay import hypothesis_version
from menace_course.checking.suite import collect
from menace_course.course import find_course
from menace_course.kit import fill_public_course
from menace_course.models import SubmissionReport
from menace_course.pins import autograder_requirements, canonical, pins
from tests.conftest import REPO, run_menace

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
RIGHT = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    from hatchling.builders.wheel import WheelBuilder

    out = tmp_path_factory.mktemp("dist")
    built = next(iter(WheelBuilder(str(REPO)).build(directory=str(out), versions=["standard"])))
    return zipfile.ZipFile(built)


@pytest.fixture(scope="module")
def metadata(wheel) -> email.message.Message:
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    return email.message_from_bytes(wheel.read(name))


@pytest.mark.parametrize("option", ["--version", "-V"])
def test_menace_version_prints_the_packages_version(option):
    done = run_menace(option)
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == f"menace {__version__}"
    assert done.stdout.splitlines()[1] == f"Python {sys.version.split()[0]}"


def test_the_version_is_written_once_in_the_package_and_the_wheel_carries_it(metadata):
    assert "version" not in PYPROJECT["project"] and PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "menace_course/__init__.py"
    assert metadata["Version"] == __version__ == importlib.metadata.version("menace-course")


def test_the_wheel_has_the_mit_licence_the_python_versions_and_the_projects_addresses(wheel, metadata):
    licence = next(n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE"))
    text = wheel.read(licence).decode()
    assert text.startswith("MIT License") and "menace-course developers" in text
    assert text == (REPO / "LICENSE").read_text(encoding="utf-8")
    assert metadata["License-Expression"] == "MIT"
    classifiers = metadata.get_all("Classifier")
    for minor in (11, 12, 13):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL"))
    assert {"Homepage", "Source", "Issues", "Changelog", "Documentation"} <= set(urls)


def test_the_wheel_asks_only_for_the_small_set_and_puts_the_rest_in_extras(metadata):
    plain = [Requirement(r) for r in metadata.get_all("Requires-Dist") if "extra ==" not in r]
    assert {canonical(r.name) for r in plain} == {"click", "rich", "jinja2", "markupsafe"}
    extras = set(metadata.get_all("Provides-Extra"))
    assert {"grader", "plots", "service", "dev"} <= extras
    grader = [r for r in metadata.get_all("Requires-Dist") if "extra == 'grader'" in r]
    assert [Requirement(r).name for r in grader] == ["hypothesis"]


def test_the_wheel_carries_the_compiled_translations(wheel):
    mo = "menace_course/locale/zh_TW/LC_MESSAGES/menace.mo"
    assert wheel.read(mo) == (REPO / mo).read_bytes()


def test_the_wheel_carries_the_grading_constraints(wheel):
    inside = wheel.read("menace_course/constraints/grading.txt").decode()
    assert inside == (REPO / "constraints" / "grading.txt").read_text(encoding="utf-8")


def test_the_changelog_has_this_version():
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{__version__}]" in text


def test_every_dependency_is_pinned_in_the_grading_constraints_within_its_range():
    versions = pins()
    project = PYPROJECT["project"]
    needed = [*project["dependencies"]]
    for extra in ("grader", "plots", "service"):
        needed += [r for r in project["optional-dependencies"][extra] if not r.startswith("menace-course")]
    for text in needed:
        requirement = Requirement(text)
        pinned = versions.get(canonical(requirement.name))
        assert pinned is not None, f"{requirement.name} is not in constraints/grading.txt"
        assert requirement.specifier.contains(pinned), f"{requirement.name}=={pinned} is outside {text}"


def test_the_autograders_requirements_pin_hypothesis_exactly():
    versions = pins()
    lines = autograder_requirements(["click>=8.1", "rich>=13"]).splitlines()
    assert lines[1:] == [
        "-c constraints.txt",
        f"click=={versions['click']}",
        f"rich=={versions['rich']}",
        f"hypothesis=={versions['hypothesis']}",
    ]


def test_a_report_names_the_hypothesis_that_ran_its_hidden_tests(tmp_path):
    course = find_course(REPO)
    answer = tmp_path / "after_game.py"
    answer.write_text(RIGHT, encoding="utf-8")
    suite = collect(course, catalog.load_challenge(course, "after_game"))
    report = check_submission(answer, suite, sandbox="process")
    assert report.version == __version__
    assert report.hypothesis_version == hypothesis_version() == importlib.metadata.version("hypothesis")
    data = report.to_dict()
    assert data["hypothesis_version"] == report.hypothesis_version
    assert SubmissionReport.from_dict(data) == report


def test_a_kits_report_says_no_hypothesis_ran(tmp_path):
    kit = tmp_path / "kit"
    fill_public_course(find_course(REPO), kit)
    course = find_course(kit)
    answer = tmp_path / "after_game.py"
    answer.write_text(RIGHT, encoding="utf-8")
    report = check_submission(
        answer, collect(course, catalog.load_challenge(course, "after_game")), sandbox="process"
    )
    assert report.hidden_not_run and report.hypothesis_version == ""


def _complete(words: str) -> list[str]:
    """What ``menace`` offers in bash for the last word of ``words``."""
    script = Path(sys.executable).parent / "menace"
    index = len(words.split()) - (0 if words.endswith(" ") else 1)
    env = {**os.environ, "_MENACE_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(index)}
    done = subprocess.run([script], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    return [line.split(",", 1)[1] for line in done.stdout.splitlines() if line]


def test_the_shell_completes_challenge_names_for_check_show_start_and_validate():
    slugs = catalog.list_slugs(find_course(REPO))
    assert _complete("menace check x.py --challenge ") == slugs
    assert _complete("menace show af") == ["after_game"]
    assert _complete("menace validate co") == ["count_boxes"]
    assert _complete("menace start step") == ["step1", "step2", "step3", "step4"]
    assert _complete("menace start ") == [*slugs, "step1", "step2", "step3", "step4"]


def test_completion_with_no_course_to_be_found_offers_nothing_and_fails_nothing():
    assert _complete("menace show --course /no/such/course ") == []
    assert _complete("menace start --course /no/such/course ") == ["step1", "step2", "step3", "step4"]


def test_the_readme_shows_how_to_turn_completion_on():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert 'eval "$(_MENACE_COMPLETE=bash_source menace)"' in text
    done = subprocess.run(
        [Path(sys.executable).parent / "menace"],
        env={**os.environ, "_MENACE_COMPLETE": "bash_source"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "_menace_completion" in done.stdout
