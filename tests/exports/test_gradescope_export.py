"""The Gradescope autograder, run offline against a simulated ``/autograder`` tree.

What is real here: the zip is built by ``build_autograder``; ``setup.sh`` is run by bash
with the tree's root in ``AUTOGRADER_ROOT`` and creates its own virtual environment and
pip-installs the zip's requirements and wheel into it; ``run_autograder`` is run by bash
and grades the submission with that environment's Python.

What is simulated: Gradescope's container. ``setup.sh`` skips apt-get
(``MENACE_SKIP_APT=1``), and its venv sees this environment's packages
(``MENACE_VENV_OPTIONS=--system-site-packages``) so pip needs no network. The sandbox is
``auto``, as in a real export: bubblewrap where it runs, else a plain process.
"""

from __future__ import annotations

import json
import os
import subprocess
import zipfile
from pathlib import Path

import jsonschema
import pytest

from menace_course import catalog
from menace_course.autograders import gradescope as gradescope_autograder
from menace_course.checking.pipeline import check_submission
from menace_course.checking.suite import collect
from menace_course.course import find_course
from menace_course.errors import UnknownChallenge, UsageError
from menace_course.exports.gradescope import build_autograder, check_visibility
from menace_course.exports.gradescope_results import SCHEMA, results_json
from menace_course.sandbox.launch import bwrap_works
from tests.conftest import REPO, run_menace

NO_FLOOR_DRAW_TWO = """def after_game(beads, square, result):
    new = list(beads)
    new[square] += {'win': 3, 'draw': 2, 'loss': -1}[result]
    return new
"""


def validate(results: dict) -> None:
    """Check ``results`` against the schema written from Gradescope's spec."""
    jsonschema.validate(results, json.loads(SCHEMA.read_text()))


@pytest.fixture(scope="module")
def autograder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export") / "autograder.zip"
    build_autograder(find_course(REPO), "after_game", out)
    return out


@pytest.fixture(scope="module")
def installed_root(autograder, tmp_path_factory) -> Path:
    """A simulated /autograder: source/ unpacked from the zip, then setup.sh run for real."""
    root = tmp_path_factory.mktemp("autograder")
    with zipfile.ZipFile(autograder) as archive:
        archive.extractall(root / "source")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "MENACE_SKIP_APT": "1"}
    env["MENACE_VENV_OPTIONS"] = "--system-site-packages"
    done = subprocess.run(
        ["bash", str(root / "source" / "setup.sh")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    course = next(root.glob("menace-venv/lib/python3*/site-packages/menace_course/_course"))
    assert course.stat().st_mode & 0o077 == 0, "only the grader may read the hidden tests"
    for private in (root / "source", *(root / "source").glob("*.whl")):
        assert private.stat().st_mode & 0o077 == 0, f"{private.name}: the wheel holds the hidden tests too"
    return root


def run_autograder(root: Path, submission: dict[str, str], **env_extra: str) -> dict:
    folder = root / "submission"
    if folder.exists():
        for path in sorted(folder.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
    folder.mkdir(exist_ok=True)
    for name, text in submission.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), **env_extra}
    done = subprocess.run(
        ["bash", str(root / "source" / "run_autograder")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0
    return json.loads((root / "results" / "results.json").read_text())


def test_zip_has_the_scripts_at_its_root_and_the_challenge_private_parts_in_its_wheel(autograder):
    with zipfile.ZipFile(autograder) as archive:
        names = set(archive.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in archive.infolist()}
        wheel_name = next(n for n in names if n.endswith(".whl"))
        assert names == {"setup.sh", "run_autograder", "requirements.txt", "constraints.txt", wheel_name}
        assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
        with archive.open(wheel_name) as raw, zipfile.ZipFile(raw) as wheel:
            inside = wheel.namelist()
    course = "menace_course/_course/"
    assert f"{course}hidden_tests/after_game/test_after_game.py" in inside
    assert f"{course}reference/after_game.py" in inside
    assert f"{course}challenges/after_game/challenge.toml" in inside
    others = [
        n for n in inside if n.startswith(course) and "after_game" not in n and "feedback_templates" not in n
    ]
    assert others == [], "the autograder holds only the exported challenge"


def test_zip_installs_the_grading_environments_exact_versions_hypothesis_among_them(autograder):
    with zipfile.ZipFile(autograder) as archive:
        requirements = archive.read("requirements.txt").decode().splitlines()
        constraints = archive.read("constraints.txt").decode()
    assert constraints == (REPO / "constraints" / "grading.txt").read_text(encoding="utf-8")
    pinned = dict(line.split("==") for line in constraints.splitlines() if "==" in line)
    assert "-c constraints.txt" in requirements
    assert f"hypothesis=={pinned['hypothesis']}" in requirements
    assert f"click=={pinned['click']}" in requirements
    wanted = [line for line in requirements if line and not line.startswith(("#", "-c"))]
    assert all("==" in line for line in wanted), "every requirement is exact"
    assert not [line for line in wanted if line.startswith(("matplotlib", "flask", "pytest"))]


@pytest.mark.slow
def test_buggy_submission_gets_per_test_results_that_follow_the_spec(installed_root):
    results = run_autograder(installed_root, {"after_game.py": NO_FLOOR_DRAW_TWO})
    validate(results)
    assert results["extra_data"]["menace"]["sandbox"] == ("bwrap" if bwrap_works() else "process")
    pinned = (REPO / "constraints" / "grading.txt").read_text(encoding="utf-8")
    assert f"hypothesis=={results['extra_data']['menace']['hypothesis_version']}\n" in pinned
    tests = results["tests"]
    assert [t["number"] for t in tests] == [str(i) for i in range(1, len(tests) + 1)]
    assert results["score"] == sum(t["score"] for t in tests) < sum(t["max_score"] for t in tests)
    failed = {t["name"]: t for t in tests if t["status"] == "failed"}
    example = failed["Example 2: after_game([3, 0, 3, 0, 0, 3, 0, 0, 0], 5, 'draw')"]
    assert example["visibility"] == "visible"
    assert "expected: [3, 0, 3, 0, 0, 4, 0, 0, 0]" in example["output"]
    assert "got:      [3, 0, 3, 0, 0, 5, 0, 0, 0]" in example["output"]
    hidden = failed["A loss on a square that has no beads left keeps it at 0"]
    assert hidden["visibility"] == "after_published" and hidden["score"] == 0
    # A hidden test shows its name, the kind of problem and its hint, never a call, an input or
    # an expected value.
    first = "✗ A loss on a square that has no beads left keeps it at 0: after_game returned a different value"
    assert hidden["output"].splitlines()[0] == first
    assert hidden["output"].splitlines()[1].startswith("hint: A count never goes below 0")
    assert "[" not in hidden["output"] and "expected" not in hidden["output"]
    # The top-level feedback holds back the hidden tests' results until they are published,
    # and says that they ran (not that they will run when the instructor grades).
    assert "12 hidden checks have run; their results appear when" in results["output"]
    assert "A loss on a square" not in results["output"] and "did not run" not in results["output"]


@pytest.mark.slow
def test_notebook_submission_in_a_subfolder_is_found_and_graded(installed_root):
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": NO_FLOOR_DRAW_TWO}]
    notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    results = run_autograder(installed_root, {"work/Mine.ipynb": notebook, "notes.txt": "hi"})
    validate(results)
    assert results["extra_data"]["menace"]["file"] == "Mine.ipynb"
    assert results["extra_data"]["menace"]["status"] == "checked"


@pytest.mark.slow
def test_submission_without_a_python_file_scores_zero_with_a_reason(installed_root):
    results = run_autograder(installed_root, {"answer.txt": "I forgot"})
    validate(results)
    assert results["score"] == 0
    assert "no .py or .ipynb file" in results["output"] and "answer.txt" in results["output"]


@pytest.mark.slow
def test_a_file_name_that_is_not_utf8_is_graded_not_blamed_on_the_grader(installed_root):
    # what unzip makes of a Windows zip: Latin-1 bytes; the results must still be written
    name = os.fsdecode(b"M\xfcller.py")
    results = run_autograder(installed_root, {name: NO_FLOOR_DRAW_TWO})
    validate(results)
    assert results["extra_data"]["menace"]["file"] == "M\\udcfcller.py"
    assert 0 < results["score"] < 15 and "the fault is in the grader" not in results["output"]


@pytest.mark.slow
def test_results_are_written_even_when_python_cannot_start(installed_root):
    results = run_autograder(
        installed_root, {"after_game.py": NO_FLOOR_DRAW_TWO}, MENACE_PYTHON="/nonexistent/python"
    )
    validate(results)
    assert results["score"] == 0 and "could not run" in results["output"]


def test_a_crash_in_the_grader_becomes_a_score_of_zero_with_a_message(tmp_path, monkeypatch, capsys):
    (tmp_path / "submission").mkdir()

    def crash(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(gradescope_autograder, "grade", crash)
    monkeypatch.setenv("AUTOGRADER_ROOT", str(tmp_path))
    assert gradescope_autograder.main(["--challenge", "after_game"]) == 0
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    validate(results)
    assert results["score"] == 0 and "fault is in the grader" in results["output"]
    assert "boom" not in results["output"]
    assert "RuntimeError: boom" in capsys.readouterr().out  # stdout: instructor only


@pytest.mark.parametrize("hidden", ["hidden", "after_published", "visible"])
def test_hidden_tests_take_the_visibility_the_instructor_chose(tmp_path, hidden):
    course = find_course(REPO)
    path = tmp_path / "after_game.py"
    path.write_text(NO_FLOOR_DRAW_TWO)
    suite = collect(course, catalog.load_challenge(course, "after_game"))
    report = check_submission(path, suite, "process")
    results = results_json(report, course.templates_dir, hidden=hidden)
    validate(results)
    visibility = {t["tags"][0]: t["visibility"] for t in results["tests"]}
    assert visibility == {"example": "visible", "hidden": hidden, "property": hidden}
    shown_now = "❌ A loss on a square that has no beads left keeps it at 0" in results["output"]
    assert shown_now == (hidden == "visible")


def test_schema_rejects_what_gradescope_would_not_read():
    bad = {"score": 1, "tests": [{"name": "x", "score": 1, "max_score": 1, "status": "skipped"}]}
    with pytest.raises(Exception, match="skipped"):
        validate(bad)


def test_unknown_challenge_and_an_existing_zip_are_refused(tmp_path, autograder):
    course = find_course(REPO)
    with pytest.raises(UnknownChallenge) as unknown:
        build_autograder(course, "after_gaem", tmp_path / "a.zip")
    assert unknown.value.exit_code == 2 and "after_game" in str(unknown.value)
    with pytest.raises(UsageError, match="--force"):
        build_autograder(course, "after_game", autograder)


def test_menace_export_gradescope_says_did_you_mean_with_exit_2(tmp_path):
    done = run_menace("export", "gradescope", "--challenge", "aftergame", "--out", str(tmp_path / "a.zip"))
    assert done.returncode == 2 and "did you mean 'after_game'" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "a.zip").exists()


def test_menace_export_gradescope_writes_the_zip_and_says_what_is_in_it(tmp_path):
    done = run_menace("export", "gradescope", "--challenge", "after_game", "--out", str(tmp_path / "a.zip"))
    assert done.returncode == 0, done.stderr
    assert "15 tests (12 hidden, after_published on Gradescope), 15 points" in done.stdout
    assert zipfile.is_zipfile(tmp_path / "a.zip")


def test_hidden_visibility_is_refused_for_hidden_tests_that_carry_points(tmp_path):
    target = tmp_path / "a.zip"
    argv = ("export", "gradescope", "--challenge", "after_game", "--out", str(target))
    done = run_menace(*argv, "--hidden-visibility", "hidden")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "would hide 12 tests worth 12 of the 15 points" in done.stderr
    assert "after_published" in done.stderr and not target.exists()


def test_hidden_visibility_refusal_names_one_hidden_test_in_the_singular():
    with pytest.raises(UsageError, match=r"would hide 1 test worth 2 of the 3 points"):
        check_visibility("hidden", [(1.0, True), (2.0, False)])


def test_hidden_visibility_stays_allowed_for_tests_without_points():
    check_visibility("hidden", [(1.0, True), (0.0, False)])  # an informational hidden test
    check_visibility("after_published", [(1.0, False)])
    with pytest.raises(UsageError, match="hidden for tests without points"):
        check_visibility("hidden", [(1.0, True), (2.0, False)])
