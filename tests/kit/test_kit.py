"""The student kit: what its wheel holds, and ``menace check`` from it in a fresh environment.

The wheel is inspected file by file: no hidden test code, no reference solution, and not
one line of either (nor any list they compare with) anywhere in it. Then it is installed
into a new virtual environment (``--system-site-packages`` for the dependencies, the kit
itself with ``--no-deps``) and ``menace check`` runs from an empty folder outside the
repository, where the only course is the one inside the kit.
"""

from __future__ import annotations

import ast
import json
import subprocess
import venv
import zipfile
from pathlib import Path

import pytest

from menace_course import catalog
from menace_course.checking.suite import collect, manifest_entries
from menace_course.course import find_course
from menace_course.errors import UsageError
from menace_course.kit import build_kit, public_files
from tests.conftest import REPO, run_menace

COURSE = "menace_course/_course/"
RIGHT = """def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return new
"""
DRAW_TWO = RIGHT.replace("'draw': 1", "'draw': 2")


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    return build_kit(find_course(REPO), tmp_path_factory.mktemp("kit"))


@pytest.fixture(scope="module")
def wheel_files(kit) -> dict[str, str]:
    with zipfile.ZipFile(kit.wheel) as wheel:
        return {name: wheel.read(name).decode("utf-8", "replace") for name in wheel.namelist()}


def _private_files() -> list[Path]:
    hidden = sorted((REPO / "hidden_tests").rglob("*.py"))
    references = sorted((REPO / "reference").glob("*.py"))
    return hidden + references


def _package_texts() -> list[str]:
    """The package's own files (code and templates): public, whatever a hidden test shares with them."""
    paths = (REPO / "menace_course").rglob("*")
    return [
        p.read_text(encoding="utf-8", errors="replace")
        for p in paths
        if p.is_file() and "__pycache__" not in p.parts and "_course" not in p.parts
    ]


def _public_course_texts() -> list[str]:
    """What the course shows students on purpose: challenge texts, starters, wording, steps."""
    course = find_course(REPO)
    paths = [p for c in catalog.load_all(course) for p in public_files(c)]
    paths += [p for p in course.templates_dir.rglob("*") if p.is_file()]
    paths += sorted((course.reference_dir / "steps").glob("*.py"))
    return [p.read_text(encoding="utf-8") for p in paths]


def _public_text() -> str:
    """Everything public anyway: the package's files and the course's public files."""
    return "\n".join(_package_texts() + _public_course_texts())


def test_kit_has_every_challenge_but_no_hidden_tests_and_no_solutions(kit, wheel_files):
    names = [n for n in wheel_files if n.startswith(COURSE)]
    assert not [n for n in names if n.startswith(COURSE + "hidden_tests/")]
    references = [n for n in names if n.startswith(COURSE + "reference/")]
    assert references and all(n.startswith(COURSE + "reference/steps/") for n in references)
    slugs = catalog.list_slugs(find_course(REPO))
    assert list(kit.challenges) == slugs
    for slug in slugs:
        for part in ("README.md", "challenge.toml", "starter.py", "hidden.json"):
            assert f"{COURSE}challenges/{slug}/{part}" in wheel_files
        assert not [n for n in names if n.startswith(f"{COURSE}challenges/{slug}/wrong/")]


def test_every_course_file_in_the_kit_is_a_public_file_or_a_manifest(wheel_files):
    course = find_course(REPO)
    allowed = {f"challenges/{c.slug}/{p.name}": p for c in catalog.load_all(course) for p in public_files(c)}
    allowed |= {
        f"feedback_templates/{p.relative_to(course.templates_dir)}": p
        for p in course.templates_dir.rglob("*")
        if p.is_file()
    }
    allowed |= {f"reference/steps/{p.name}": p for p in (course.reference_dir / "steps").glob("*.py")}
    for name, text in wheel_files.items():
        if not name.startswith(COURSE):
            continue
        relative = name.removeprefix(COURSE)
        if relative.endswith("/hidden.json"):
            continue
        assert relative in allowed, f"{relative} is not a public file of the course"
        assert text == allowed[relative].read_text(encoding="utf-8")


def test_hidden_manifest_says_names_titles_kinds_hints_and_points_only(wheel_files):
    course = find_course(REPO)
    for slug in catalog.list_slugs(course):
        manifest = json.loads(wheel_files[f"{COURSE}challenges/{slug}/hidden.json"])
        assert manifest == manifest_entries(collect(course, catalog.load_challenge(course, slug)))
        assert all(set(entry) == {"name", "title", "kind", "hint", "points"} for entry in manifest)


def test_no_line_of_a_hidden_test_or_reference_is_anywhere_in_the_kit(wheel_files):
    public = _public_text()
    everything = "\n".join(wheel_files.values())
    leaks = []
    for path in _private_files():
        for line in path.read_text().splitlines():
            code = line.strip()
            if len(code) < 16 or code.startswith(('"""', "#")) or code in public:
                continue
            if code in everything:
                leaks.append(f"{path.relative_to(REPO)}: {code}")
    assert leaks == []


def test_no_value_a_hidden_test_compares_with_is_in_the_kit(wheel_files):
    public = _public_text()
    everything = "\n".join(wheel_files.values())
    checked = 0
    for path in sorted((REPO / "hidden_tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.List | ast.Tuple) and len(node.elts) >= 6:
                try:
                    value = ast.literal_eval(node)
                except ValueError:
                    continue
                text = json.dumps(value)
                if text in public or repr(value) in public:  # in an example or the lesson's code
                    continue
                checked += 1
                assert repr(value) not in everything and text not in everything, (path.name, node.lineno)
    assert checked > 0, "the test must look at some values"


def test_an_existing_kit_is_kept_unless_forced(kit):
    with pytest.raises(UsageError, match="--force"):
        build_kit(find_course(REPO), kit.wheel.parent)


@pytest.fixture(scope="module")
def kit_python(kit, tmp_path_factory) -> Path:
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check", kit.wheel],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return python


def _check(python: Path, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [python, "-m", "menace_course", "check", *args]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_installed_kit_checks_from_an_empty_folder_and_is_honest_about_hidden_tests(kit_python, tmp_path):
    done = subprocess.run(
        [kit_python, "-c", "from menace_course.course import find_course; print(find_course().root)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(done.stdout.strip()).is_relative_to(kit_python.parent.parent), "the kit's own course is used"
    assert not Path(done.stdout.strip(), "hidden_tests").exists()
    (tmp_path / "after_game.py").write_text(RIGHT)
    right = _check(kit_python, tmp_path, "after_game.py")
    assert right.returncode == 3, right.stdout + right.stderr  # the examples pass, hidden not run
    assert "Hidden checks that run when your instructor grades (12)" in right.stdout
    verdict = right.stdout.strip().splitlines()[-1]
    assert verdict == (
        "✓ The 3 examples pass; 12 hidden checks did not run here: they run when your instructor grades. "
        "To run them now, check on your course's check service: menace check after_game.py --server URL "
        "(your instructor gives you its address and a token)."
    )
    assert "passes all" not in right.stdout and "A loss on a square that has no beads left" in right.stdout
    as_json = json.loads(_check(kit_python, tmp_path, "after_game.py", "--format", "json").stdout)
    assert as_json["passed"] is False and len(as_json["hidden_not_run"]) == 12


def test_kit_readme_documents_the_exit_code_a_kit_check_ends_with(kit):
    text = kit.instructions.read_text()
    # From any folder (KIT names where the kit is), and where the system's pip refuses (PEP 668).
    assert f"pipx install KIT/{kit.wheel.name}" in text
    assert "python3 -m venv ~/menace-kit-env\n    ~/menace-kit-env/bin/python3 -m pip install KIT/" in text
    assert "externally-managed-environment" in text
    assert "3  the examples pass, but the hidden checks did not run here" in text
    assert "menace show after_game" in text


@pytest.mark.slow
def test_installed_kit_shows_a_challenges_text_from_an_empty_folder(kit_python, tmp_path):
    command = [kit_python, "-m", "menace_course", "show", "opening_box"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "opening_box(games)" in done.stdout and "What the page leaves open" in done.stdout


@pytest.mark.slow
def test_installed_kit_finds_a_wrong_example_and_lists_hidden_tests_as_not_run(kit_python, tmp_path):
    (tmp_path / "mine.py").write_text(DRAW_TWO)
    wrong = _check(kit_python, tmp_path, "mine.py", "--format", "json")
    assert wrong.returncode == 1
    report = json.loads(wrong.stdout)
    assert {t["kind"] for t in report["tests"]} == {"example"}, "only visible examples run"
    assert [t["outcome"] for t in report["tests"]] == ["passed", "failed", "passed"]
    assert len(report["hidden_not_run"]) == 12 and report["passed"] is False


def test_kit_readme_tells_how_to_check_on_the_course_service_with_the_token_in_the_environment(kit):
    text = kit.instructions.read_text()
    assert "menace check after_game.py --server <address>" in text
    assert "MENACE_SERVER" in text and "read -rs MENACE_TOKEN && export MENACE_TOKEN" in text
    assert "never on the command line" in text
    # No example of the token typed on a command line.
    assert "MENACE_TOKEN=<" not in text and "MENACE_TOKEN=mc_" not in text


def test_kit_instructions_name_the_wheel(kit):
    assert kit.wheel.name in kit.instructions.read_text()


def test_menace_kit_refuses_a_file_as_its_folder_with_exit_2_and_no_traceback(tmp_path):
    target = tmp_path / "kit.zip"
    target.write_text("not a folder")
    done = run_menace("kit", "--out", str(target))
    assert done.returncode == 2
    assert "is a file" in done.stderr and "Traceback" not in done.stderr
