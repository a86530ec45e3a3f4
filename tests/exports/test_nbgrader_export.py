"""The nbgrader export: the notebook's cells and metadata, and grades that agree with menace.

Most tests need no nbgrader: they read the exported notebook, or run its code cells one
by one in a fresh namespace the way nbgrader's kernel does and score each test cell as
nbgrader does (0 on an error or any stderr output, else its points). The tests marked
``nbgrader`` run the real thing (``tox -e nbgrader``): ``generate_assignment`` and
``autograde`` on notebook submissions, read back from nbgrader's gradebook. They are
skipped where nbgrader is not installed, unless ``MENACE_REQUIRE_NBGRADER=1``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from menace_course import catalog
from menace_course.autograders.nbgrader import GRADING_SETTINGS
from menace_course.checking.pipeline import check_submission
from menace_course.checking.suite import collect
from menace_course.checking.testing import GRADING_PROFILE
from menace_course.course import find_course
from menace_course.errors import CourseError, UnknownChallenge, UsageError
from menace_course.exports.nbgrader import (
    build_notebook,
    checks_source,
    export_assignment,
    hidden_module_source,
)
from menace_course.models import Outcome
from tests.conftest import REPO, run_menace

COURSE = find_course(REPO)
HIDDEN_REGION = re.compile(r"### BEGIN (HIDDEN TESTS|SOLUTION).*?### END (HIDDEN TESTS|SOLUTION)\n?", re.S)


def nbgrader_metadata(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def run_like_nbgrader(document: dict, answer: str) -> dict[str, bool]:
    """Run the code cells in order in one namespace; score each test cell as nbgrader does."""
    namespace: dict = {"__name__": "__main__"}
    scores = {}
    for cell in document["cells"]:
        if cell["cell_type"] != "code":
            continue
        meta = nbgrader_metadata(cell)
        source = answer if meta.get("solution") else "".join(cell["source"])
        stderr = io.StringIO()
        try:
            with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
                exec(compile(source, meta["grade_id"], "exec"), namespace)
            ok = True
        except Exception:
            ok = False
        if meta.get("grade"):
            scores[meta["grade_id"]] = ok and not stderr.getvalue()
    return scores


def menace_verdicts(slug: str, path: Path) -> dict[str, bool]:
    suite = collect(COURSE, catalog.load_challenge(COURSE, slug))
    report = check_submission(path, suite, "process")
    return {t.name: t.outcome is Outcome.PASSED for t in report.tests}


def answers(slug: str) -> list[Path]:
    challenge = catalog.load_challenge(COURSE, slug)
    return [*sorted((challenge.folder / "wrong").glob("*.py")), COURSE.reference_dir / f"{slug}.py"]


@pytest.mark.parametrize("slug", catalog.list_slugs(COURSE))
def test_every_menace_test_becomes_one_locked_test_cell_with_its_name_and_points(slug):
    challenge = catalog.load_challenge(COURSE, slug)
    built = build_notebook(COURSE, challenge)
    tests = [nbgrader_metadata(c) for c in built.document["cells"] if nbgrader_metadata(c).get("grade")]
    suite = collect(COURSE, challenge)
    assert [(t["grade_id"], t["points"]) for t in tests] == [(c.name, c.points) for c in suite.cases]
    assert all(t["locked"] and not t["solution"] and t["schema_version"] == 3 for t in tests)
    ids = [nbgrader_metadata(c)["grade_id"] for c in built.document["cells"] if c["cell_type"] == "code"]
    assert len(ids) == len(set(ids))


def test_answer_cell_holds_the_reference_between_solution_markers():
    document = build_notebook(COURSE, catalog.load_challenge(COURSE, "after_game")).document
    answer = [c for c in document["cells"] if nbgrader_metadata(c).get("solution")]
    assert len(answer) == 1 and not nbgrader_metadata(answer[0])["grade"]
    source = "".join(answer[0]["source"])
    reference = (COURSE.reference_dir / "after_game.py").read_text().rstrip()
    assert source.index("### BEGIN SOLUTION") < source.index(reference) < source.index("### END SOLUTION")
    checks = next(c for c in document["cells"] if nbgrader_metadata(c).get("grade_id") == "checks")
    assert nbgrader_metadata(checks)["locked"] and not nbgrader_metadata(checks)["grade"]


@pytest.mark.parametrize("slug", catalog.list_slugs(COURSE))
def test_students_copy_keeps_no_line_of_the_hidden_tests_or_the_reference(slug):
    document = build_notebook(COURSE, catalog.load_challenge(COURSE, slug)).document
    released = "\n".join(HIDDEN_REGION.sub("", "".join(c["source"])) for c in document["cells"])
    private = [*(COURSE.hidden_tests_dir / slug).glob("*.py"), COURSE.reference_dir / f"{slug}.py"]
    challenge = catalog.load_challenge(COURSE, slug)
    public = "\n".join(
        p.read_text() for p in [*challenge.folder.glob("*.*"), *COURSE.templates_dir.rglob("*.j2")]
    )
    leaks = [
        code
        for path in private
        for code in (line.strip() for line in path.read_text().splitlines())
        if len(code) >= 24 and not code.startswith(("#", '"""')) and code in released and code not in public
    ]
    assert leaks == []
    assert "### BEGIN HIDDEN TESTS" in "".join("".join(c["source"]) for c in document["cells"])


@pytest.mark.slow
@pytest.mark.parametrize("slug", ["after_game", "opening_box", "name"])
def test_notebook_scores_each_answer_test_by_test_as_menace_does(slug):
    document = build_notebook(COURSE, catalog.load_challenge(COURSE, slug)).document
    for path in answers(slug):
        assert run_like_nbgrader(document, path.read_text()) == menace_verdicts(slug, path), path.name


def test_checks_cell_grades_under_menaces_hypothesis_profile():
    namespace: dict = {}
    exec(checks_source(2.0), namespace)
    profile = settings.get_profile(GRADING_PROFILE)
    assert namespace["GRADING_SETTINGS"] == {key: getattr(profile, key) for key in GRADING_SETTINGS}
    assert namespace["CALL_SECONDS"] == 2.0


def test_a_call_that_runs_too_long_fails_and_the_function_is_not_called_again():
    namespace: dict = {}
    exec("def spin(n):\n    while True:\n        pass\n", namespace)
    exec(checks_source(0.2), namespace)
    for _ in range(2):
        with pytest.raises(AssertionError, match="spin"):
            namespace["submission"].spin(1)
    assert [c.outcome.status for c in namespace["submission"].calls] == ["timeout", "dead"]


def test_a_failed_hidden_test_says_only_its_title_and_hint():
    document = build_notebook(COURSE, catalog.load_challenge(COURSE, "after_game")).document
    namespace: dict = {}
    wrong = (COURSE.challenges_dir / "after_game" / "wrong" / "no_floor.py").read_text()
    for cell in document["cells"]:
        meta = nbgrader_metadata(cell)
        if cell["cell_type"] != "code":
            continue
        if meta.get("grade_id") == "loss_on_an_empty_colour_stays_at_zero":
            with pytest.raises(AssertionError) as failed:
                exec("".join(cell["source"]), namespace)
            message = str(failed.value)
            assert message.startswith("hidden test failed: A loss on a square that has no beads left")
            assert "Hint: A count never goes below 0" in message and "[" not in message
            assert failed.value.__suppress_context__
            return
        exec(wrong if meta.get("solution") else "".join(cell["source"]), namespace)
    pytest.fail("no such test cell")


def test_hidden_tests_may_import_only_what_the_checks_cell_offers(tmp_path):
    path = tmp_path / "test_x.py"
    path.write_text("from menace_course.checking.testing import expect, marks_of\n")
    with pytest.raises(CourseError, match="marks_of"):
        hidden_module_source(path)
    path.write_text("from menace_course.checking.testing import (\n    expect,\n    hint,\n)\nX = 1\n")
    assert hidden_module_source(path) == "\n\n\n\nX = 1\n"


def test_an_existing_assignment_is_kept_unless_forced_and_the_config_is_never_overwritten(tmp_path):
    first = export_assignment(COURSE, "after_game", tmp_path)
    assert first.config_written and first.test_cells == 15
    first.config.write_text("# the instructor's own settings\n")
    with pytest.raises(UsageError, match="--force"):
        export_assignment(COURSE, "after_game", tmp_path)
    again = export_assignment(COURSE, "after_game", tmp_path, force=True)
    assert not again.config_written and again.config.read_text() == "# the instructor's own settings\n"
    with pytest.raises(UnknownChallenge):
        export_assignment(COURSE, "aftergame", tmp_path)


# -- the real nbgrader --------------------------------------------------------------------

STUDENTS = {
    "right": COURSE.reference_dir / "after_game.py",
    "no_floor": COURSE.challenges_dir / "after_game" / "wrong" / "no_floor.py",
    "changes_the_list": COURSE.challenges_dir / "after_game" / "wrong" / "changes_the_list.py",
    "returns_a_tuple": COURSE.challenges_dir / "after_game" / "wrong" / "returns_a_tuple.py",
}


@pytest.fixture
def nbgrader_cli():
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        if os.environ.get("MENACE_REQUIRE_NBGRADER") == "1":
            pytest.fail("nbgrader is not installed, but MENACE_REQUIRE_NBGRADER=1 requires it")
        pytest.skip("nbgrader is not installed (tox -e nbgrader runs these tests)")

    def run(course_dir: Path, *args: str) -> str:
        # nbgrader starts `alembic` and a kernel by name: this interpreter's scripts come first.
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        env = {**os.environ, "HOME": str(course_dir.parent / "home"), "PATH": path}
        done = subprocess.run(
            [sys.executable, "-m", "nbgrader", *args],
            cwd=course_dir,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        return done.stdout + done.stderr

    return run


def _submit(course_dir: Path, student: str, answer: str | None) -> None:
    release = json.loads((course_dir / "release" / "after_game" / "after_game.ipynb").read_text())
    for cell in release["cells"]:
        if nbgrader_metadata(cell).get("solution") and answer is not None:
            cell["source"] = answer
    folder = course_dir / "submitted" / student / "after_game"
    folder.mkdir(parents=True)
    (folder / "after_game.ipynb").write_text(json.dumps(release))


@pytest.mark.nbgrader
def test_real_nbgrader_accepts_the_export_and_its_grades_agree_with_menace(tmp_path, nbgrader_cli):
    from nbgrader.api import Gradebook

    course_dir = tmp_path / "course"
    export_assignment(COURSE, "after_game", course_dir)
    nbgrader_cli(course_dir, "generate_assignment", "after_game")
    released = (course_dir / "release" / "after_game" / "after_game.ipynb").read_text()
    assert (
        "BEGIN HIDDEN" not in released
        and "REWARD" not in released
        and "raise NotImplementedError" in released
    )
    for student, path in STUDENTS.items():
        _submit(course_dir, student, path.read_text())
    _submit(course_dir, "unanswered", None)
    nbgrader_cli(course_dir, "autograde", "after_game")
    with contextlib.closing(Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}")) as gradebook:
        for student, path in [*STUDENTS.items(), ("unanswered", None)]:
            submission = gradebook.find_submission_notebook("after_game", "after_game", student)
            nbgrader_says = {g.name: g.score == g.max_score for g in submission.grades if g.name != "answer"}
            if path is None:
                assert not any(nbgrader_says.values())
                continue
            assert nbgrader_says == menace_verdicts("after_game", path), student


def test_menace_export_nbgrader_writes_the_course_and_names_the_next_step(tmp_path):
    done = run_menace("export", "nbgrader", "--challenge", "after_game", "--out", str(tmp_path / "nb"))
    assert done.returncode == 0, done.stderr
    assert (
        "15 test cells, 15 points" in done.stdout and "nbgrader generate_assignment after_game" in done.stdout
    )
    again = run_menace("export", "nbgrader", "--challenge", "after_game", "--out", str(tmp_path / "nb"))
    assert again.returncode == 2 and "--force" in again.stderr and "Traceback" not in again.stderr
