"""The nbgrader export: cells that hold no secret, grades that are menace's own.

Most tests need no nbgrader: they read the exported notebook, or run its cells in a fresh
namespace the way a student's kernel does (the checks cell reading the answer the way it
reads a kernel's history) and score each test cell as nbgrader does (0 on an error, else
its points). The tests marked ``nbgrader`` run the real thing (``tox -e nbgrader``):
``generate_assignment``, ``autograde`` (which grades with menace's step, starting no
kernel) and ``generate_feedback`` on notebook submissions, honest and hostile, read back
from nbgrader's gradebook and feedback. They are skipped where nbgrader is not installed,
unless ``MENACE_REQUIRE_NBGRADER=1``.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from menace_course import catalog
from menace_course.autograders import nbgrader as kernel
from menace_course.autograders.nbgrader import GRADE_WITH_MENACE
from menace_course.checking.pipeline import check_submission
from menace_course.checking.suite import collect
from menace_course.course import find_course
from menace_course.errors import UnknownChallenge, UsageError
from menace_course.exports.nbgrader import GRADING_LINES, build_notebook, export_assignment
from menace_course.models import Outcome
from tests.conftest import REPO, run_menace

COURSE = find_course(REPO)
SOLUTION_REGION = re.compile(r"### BEGIN SOLUTION.*?### END SOLUTION\n?", re.S)
RIGHT = (COURSE.reference_dir / "after_game.py").read_text()


def nbgrader_metadata(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def run_like_nbgrader(document: dict, answer: str, monkeypatch, course: Path = REPO) -> dict[str, bool]:
    """Run the code cells in order in one namespace; score each test cell as nbgrader does.

    The checks cell reads the cells run before it from the kernel's history; here that
    history is the answer, as nbgrader would have run it.
    """
    monkeypatch.setattr(kernel, "executed_cells", lambda: [answer])
    monkeypatch.setenv("MENACE_COURSE", str(course))
    namespace: dict = {"__name__": "__main__"}
    scores = {}
    for cell in document["cells"]:
        if cell["cell_type"] != "code":
            continue
        meta = nbgrader_metadata(cell)
        source = answer if meta.get("solution") else "".join(cell["source"])
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(source, meta["grade_id"], "exec"), namespace)
            ok = True
        except Exception:
            ok = False
        if meta.get("grade"):
            scores[meta["grade_id"]] = ok
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
    reference = RIGHT.rstrip()
    assert source.index("### BEGIN SOLUTION") < source.index(reference) < source.index("### END SOLUTION")
    checks = next(c for c in document["cells"] if nbgrader_metadata(c).get("grade_id") == "checks")
    assert nbgrader_metadata(checks)["locked"] and not nbgrader_metadata(checks)["grade"]
    assert "check_notebook('after_game')" in "".join(checks["source"])


@pytest.mark.parametrize("slug", catalog.list_slugs(COURSE))
def test_no_cell_holds_a_line_of_the_hidden_tests_or_the_reference(slug):
    # Not even in a hidden region: the graded notebook, and so nbgrader's feedback, has none.
    document = build_notebook(COURSE, catalog.load_challenge(COURSE, slug)).document
    cells = "\n".join(SOLUTION_REGION.sub("", "".join(c["source"])) for c in document["cells"])
    private = [*(COURSE.hidden_tests_dir / slug).glob("*.py"), COURSE.reference_dir / f"{slug}.py"]
    challenge = catalog.load_challenge(COURSE, slug)
    public = "\n".join(
        p.read_text() for p in [*challenge.folder.glob("*.*"), *COURSE.templates_dir.rglob("*.j2")]
    )
    leaks = [
        code
        for path in private
        for code in (line.strip() for line in path.read_text().splitlines())
        if len(code) >= 12 and not code.startswith(("#", '"""')) and code in cells and code not in public
    ]
    assert leaks == []
    assert "HIDDEN TESTS" not in cells and "import menace_course.checking" not in cells


@pytest.mark.slow
@pytest.mark.parametrize("slug", ["after_game", "opening_box", "name"])
def test_notebook_scores_each_answer_test_by_test_as_menace_does(slug, monkeypatch):
    document = build_notebook(COURSE, catalog.load_challenge(COURSE, slug)).document
    for path in answers(slug):
        assert run_like_nbgrader(document, path.read_text(), monkeypatch) == menace_verdicts(slug, path), (
            path.name
        )


def test_a_failed_hidden_test_says_only_its_title_and_hint(monkeypatch):
    document = build_notebook(COURSE, catalog.load_challenge(COURSE, "after_game")).document
    wrong = (COURSE.challenges_dir / "after_game" / "wrong" / "no_floor.py").read_text()
    monkeypatch.setattr(kernel, "executed_cells", lambda: [wrong])
    monkeypatch.setenv("MENACE_COURSE", str(REPO))
    namespace: dict = {}
    for cell in document["cells"]:
        meta = nbgrader_metadata(cell)
        if cell["cell_type"] != "code":
            continue
        if meta.get("grade_id") == "loss_on_an_empty_colour_stays_at_zero":
            assert "A loss on a square that has no beads left" in "".join(cell["source"])
            with pytest.raises(AssertionError) as failed:
                exec("".join(cell["source"]), namespace)
            message = str(failed.value)
            assert "✗ A loss on a square that has no beads left keeps it at 0" in message
            assert "hint: A count never goes below 0" in message and "[" not in message
            return
        exec(wrong if meta.get("solution") else "".join(cell["source"]), namespace)
    pytest.fail("no such test cell")


def kit_course(tmp_path: Path) -> Path:
    """A course with no hidden tests (like the student kit)."""
    root = tmp_path / "kit"
    shutil.copytree(REPO / "challenges", root / "challenges")
    shutil.copytree(REPO / "feedback_templates", root / "feedback_templates")
    return root


def test_a_grading_kernel_without_the_hidden_tests_refuses_to_grade_and_says_why(tmp_path):
    grading = kernel.Place(kit_course(tmp_path), grading=True)
    with pytest.raises(kernel.KernelNotReady, match="has no hidden tests: set MENACE_COURSE"):
        kernel._check("after_game", [RIGHT], grading)


def test_a_students_kernel_runs_the_examples_and_says_when_the_hidden_tests_run(tmp_path, capsys):
    checks = kernel._check("after_game", [RIGHT], kernel.Place(kit_course(tmp_path), grading=False))
    checks.test("example_1")
    checks.test("loss_on_an_empty_colour_stays_at_zero")
    assert "it runs when your work is graded" in capsys.readouterr().out


def test_grading_is_where_menace_json_or_menace_course_says(tmp_path, monkeypatch):
    monkeypatch.delenv("MENACE_COURSE", raising=False)
    (tmp_path / "autograded" / "ada").mkdir(parents=True)
    assert kernel.where_we_are(tmp_path / "autograded" / "ada") == kernel.Place(None, grading=False)
    (tmp_path / "menace.json").write_text(json.dumps({"course": str(REPO)}))
    assert kernel.where_we_are(tmp_path / "autograded" / "ada") == kernel.Place(REPO, grading=True)
    monkeypatch.setenv("MENACE_COURSE", str(tmp_path))
    assert kernel.where_we_are(tmp_path / "autograded" / "ada") == kernel.Place(tmp_path, grading=True)


FUNCTION_THEN_ONE_OVER_ZERO = RIGHT.rstrip() + "\n\n1 / 0\n"


@pytest.mark.slow
def test_a_correct_function_then_one_over_zero_scores_the_function_in_a_notebook_and_zero_in_a_file(
    tmp_path, monkeypatch
):
    # The rule (docs/nbgrader in the export's docstring): a notebook runs as Jupyter runs it,
    # a cell that stops is left out; a .py file is imported as Python imports it.
    document = build_notebook(COURSE, catalog.load_challenge(COURSE, "after_game")).document
    assert all(run_like_nbgrader(document, FUNCTION_THEN_ONE_OVER_ZERO, monkeypatch).values())
    suite = collect(COURSE, catalog.load_challenge(COURSE, "after_game"))
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": FUNCTION_THEN_ONE_OVER_ZERO}]
    notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()
    as_notebook = check_submission(("answer.ipynb", notebook), suite, "process")
    as_file = check_submission(("answer.py", FUNCTION_THEN_ONE_OVER_ZERO.encode()), suite, "process")
    assert as_notebook.passed and as_notebook.score == 15
    assert as_file.status.value == "load_error" and as_file.score == 0


def test_an_existing_assignment_is_kept_unless_forced_and_the_config_is_never_overwritten(tmp_path):
    first = export_assignment(COURSE, "after_game", tmp_path)
    assert first.config_written and first.test_cells == 15
    assert GRADE_WITH_MENACE in first.config.read_text()
    assert json.loads(first.marker.read_text()) == {"course": str(COURSE.root)}
    assert "starts **no Jupyter kernel**" in (tmp_path / "MENACE.md").read_text()
    own = "# the instructor's own settings\n" + GRADING_LINES
    first.config.write_text(own)
    with pytest.raises(UsageError, match="--force"):
        export_assignment(COURSE, "after_game", tmp_path)
    again = export_assignment(COURSE, "after_game", tmp_path, force=True)
    assert not again.config_written and again.config.read_text() == own
    with pytest.raises(UnknownChallenge):
        export_assignment(COURSE, "aftergame", tmp_path)


def test_a_config_that_would_let_a_kernel_grade_is_refused_with_the_lines_to_add(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.Execute.timeout = 60\n")
    with pytest.raises(UsageError, match="does not name menace's grading step") as refused:
        export_assignment(COURSE, "after_game", tmp_path)
    assert GRADING_LINES in str(refused.value)
    assert not (tmp_path / "source").exists(), "nothing is written"
    assert (tmp_path / "nbgrader_config.py").read_text() == "c = get_config()\nc.Execute.timeout = 60\n"


def test_the_checks_cell_refuses_to_grade_in_a_kernel_that_nbgrader_autograde_started(monkeypatch):
    # Only a configuration that lost menace's step runs a menace notebook in a kernel there.
    stopped = []

    def stop(message: str) -> None:
        stopped.append(message)
        raise SystemExit(3)

    monkeypatch.setattr(kernel, "_stop_kernel", stop)
    monkeypatch.setattr(kernel, "executed_cells", lambda: [RIGHT])
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    with pytest.raises(SystemExit):
        kernel.check_notebook("after_game")
    assert stopped == [kernel.NOT_IN_A_KERNEL]
    assert "autograde_preprocessors" in kernel.NOT_IN_A_KERNEL


# -- the real nbgrader --------------------------------------------------------------------

STUDENTS = {
    "right": RIGHT,
    "no_floor": (COURSE.challenges_dir / "after_game" / "wrong" / "no_floor.py").read_text(),
    "changes_the_list": (COURSE.challenges_dir / "after_game" / "wrong" / "changes_the_list.py").read_text(),
    "returns_a_tuple": (COURSE.challenges_dir / "after_game" / "wrong" / "returns_a_tuple.py").read_text(),
    "then_one_over_zero": FUNCTION_THEN_ONE_OVER_ZERO,
}


@pytest.fixture
def nbgrader_cli():
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        if os.environ.get("MENACE_REQUIRE_NBGRADER") == "1":
            pytest.fail("nbgrader is not installed, but MENACE_REQUIRE_NBGRADER=1 requires it")
        pytest.skip("nbgrader is not installed (tox -e nbgrader runs these tests)")

    def run(course_dir: Path, *args: str, ok: bool = True, **env_extra: str) -> str:
        # nbgrader starts `alembic` and a kernel by name: this interpreter's scripts come first.
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        env = {k: v for k, v in os.environ.items() if k != "MENACE_COURSE"}  # menace.json decides
        env.update(HOME=str(course_dir.parent / "home"), PATH=path, **env_extra)
        done = subprocess.run(
            [sys.executable, "-m", "nbgrader", *args],
            cwd=course_dir,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        output = done.stdout + done.stderr
        assert (done.returncode == 0) == ok, output[-3000:]
        return output

    return run


def _submit(course_dir: Path, student: str, answer: str | None) -> None:
    release = json.loads((course_dir / "release" / "after_game" / "after_game.ipynb").read_text())
    for cell in release["cells"]:
        if nbgrader_metadata(cell).get("solution") and answer is not None:
            cell["source"] = answer
    folder = course_dir / "submitted" / student / "after_game"
    folder.mkdir(parents=True)
    (folder / "after_game.ipynb").write_text(json.dumps(release))


def _menace_says(answer: str) -> dict[str, bool]:
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": answer}]
    notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()
    suite = collect(COURSE, catalog.load_challenge(COURSE, "after_game"))
    report = check_submission(("answer.ipynb", notebook), suite, "process")
    return {t.name: t.outcome is Outcome.PASSED for t in report.tests}


@pytest.mark.nbgrader
@pytest.mark.bwrap
def test_real_nbgrader_grades_as_menace_does_and_its_feedback_holds_no_hidden_test(tmp_path, nbgrader_cli):
    from nbgrader.api import Gradebook

    course_dir = tmp_path / "course"
    export_assignment(COURSE, "after_game", course_dir)
    nbgrader_cli(course_dir, "generate_assignment", "after_game")
    released = (course_dir / "release" / "after_game" / "after_game.ipynb").read_text()
    assert "REWARD" not in released and "raise NotImplementedError" in released
    for student, answer in STUDENTS.items():
        _submit(course_dir, student, answer)
    _submit(course_dir, "unanswered", None)
    graded = nbgrader_cli(course_dir, "autograde", "after_game")
    assert "checksum" not in graded, "the test cells are the same in the students' copy"
    with contextlib.closing(Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}")) as gradebook:
        for student, answer in [*STUDENTS.items(), ("unanswered", None)]:
            submission = gradebook.find_submission_notebook("after_game", "after_game", student)
            nbgrader_says = {g.name: g.score == g.max_score for g in submission.grades if g.name != "answer"}
            if answer is None:
                assert not any(nbgrader_says.values())
                continue
            assert nbgrader_says == _menace_says(answer), student
    assert all(_menace_says(FUNCTION_THEN_ONE_OVER_ZERO).values())
    nbgrader_cli(course_dir, "generate_feedback", "after_game")
    feedback = (course_dir / "feedback" / "no_floor" / "after_game" / "after_game.html").read_text()
    assert "A loss on a square that has no beads left keeps it at 0" in feedback
    assert private_lines_in(feedback, STUDENTS["no_floor"]) == []


def private_lines_in(feedback: str, answer: str) -> list[str]:
    """The lines of the hidden tests and the reference that are in the feedback (HTML).

    Lines the challenge's public text has too (``new = list(beads)``) do not count.
    """
    feedback = html.unescape(feedback)
    private = [
        *(COURSE.hidden_tests_dir / "after_game").rglob("*.py"),
        COURSE.reference_dir / "after_game.py",
    ]
    public = (COURSE.challenges_dir / "after_game" / "README.md").read_text()
    return [
        code
        for path in private
        for code in (line.strip() for line in path.read_text().splitlines())
        if len(code) >= 16
        and not code.startswith(("#", '"""'))
        and code in feedback
        and code not in answer  # the student's own answer is in their feedback
        and code not in public
    ]


@pytest.mark.nbgrader
def test_real_nbgrader_without_the_hidden_tests_grades_nothing_and_says_why(tmp_path, nbgrader_cli):
    from nbgrader.api import Gradebook

    course_dir = tmp_path / "course"
    export_assignment(COURSE, "after_game", course_dir)
    nbgrader_cli(course_dir, "generate_assignment", "after_game")
    _submit(course_dir, "ada", RIGHT)
    output = nbgrader_cli(
        course_dir, "autograde", "after_game", ok=False, MENACE_COURSE=str(kit_course(tmp_path))
    )
    assert "has no hidden tests" in output or "Kernel died" in output
    with contextlib.closing(Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}")) as gradebook:
        assert not gradebook.find_submission("after_game", "ada").notebooks[0].grades[0].auto_score


def test_menace_export_nbgrader_writes_the_course_and_says_what_the_kernel_needs(tmp_path):
    done = run_menace("export", "nbgrader", "--challenge", "after_game", "--out", str(tmp_path / "nb"))
    assert done.returncode == 0, done.stderr
    assert (
        "15 test cells, 15 points" in done.stdout and "nbgrader generate_assignment after_game" in done.stdout
    )
    assert "needs menace-course installed" in done.stdout and "menace.json" in done.stdout
    again = run_menace("export", "nbgrader", "--challenge", "after_game", "--out", str(tmp_path / "nb"))
    assert again.returncode == 2 and "--force" in again.stderr and "Traceback" not in again.stderr


# A student's answer cell that runs code in the grading kernel, and none of them defines
# after_game: each scored 15/15 when the kernel's own history was what menace checked.
EXPLOITS = {
    # puts the reference, read from the instructor's course, in the history it was checked from
    "rewrites_history": (
        "import json, pathlib\n"
        "here = pathlib.Path.cwd()\n"
        "marker = next(p / 'menace.json' for p in (here, *here.parents) if (p / 'menace.json').is_file())\n"
        "course = pathlib.Path(json.loads(marker.read_text())['course'])\n"
        "reference = (course / 'reference' / 'after_game.py').read_text()\n"
        "get_ipython().history_manager.input_hist_raw[:] = ['', reference]\n"
    ),
    # replaces menace's checker with one that passes everything
    "patches_the_checker": (
        "import menace_course.autograders.nbgrader as checker\n"
        "class Passes:\n"
        "    def test(self, name):\n"
        "        pass\n"
        "checker.check_notebook = lambda slug: Passes()\n"
    ),
    # rewrites every later cell (the checks and the tests) into nothing
    "rewrites_later_cells": "get_ipython().input_transformers_cleanup.append(lambda lines: ['pass\\n'])\n",
    # swallows every error of the cells after it, so that no test cell shows one
    "swallows_errors": "get_ipython().set_custom_exc((BaseException,), lambda *args, **kwargs: None)\n",
    # runs the reference, and prints the reference and the hidden tests into the feedback
    "reads_the_private_files": (
        "import json, pathlib\n"
        "here = pathlib.Path.cwd()\n"
        "marker = next(p / 'menace.json' for p in (here, *here.parents) if (p / 'menace.json').is_file())\n"
        "course = pathlib.Path(json.loads(marker.read_text())['course'])\n"
        "for path in [course / 'reference' / 'after_game.py', *(course / 'hidden_tests').rglob('*.py')]:\n"
        "    print(path.read_text())\n"
        "exec((course / 'reference' / 'after_game.py').read_text())\n"
    ),
}


@pytest.mark.nbgrader
@pytest.mark.bwrap
def test_real_nbgrader_a_cell_that_tampers_with_the_kernel_scores_nothing(tmp_path, nbgrader_cli):
    from nbgrader.api import Gradebook

    course_dir = tmp_path / "course"
    export_assignment(COURSE, "after_game", course_dir)
    nbgrader_cli(course_dir, "generate_assignment", "after_game")
    for student, answer in EXPLOITS.items():
        _submit(course_dir, student, answer)
    _submit(course_dir, "right", RIGHT)
    nbgrader_cli(course_dir, "autograde", "after_game")
    with contextlib.closing(Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}")) as gradebook:
        scores = {
            student: gradebook.find_submission("after_game", student).score
            for student in [*EXPLOITS, "right"]
        }
    assert scores == {**dict.fromkeys(EXPLOITS, 0.0), "right": 15.0}
    nbgrader_cli(course_dir, "generate_feedback", "after_game")
    for student, answer in EXPLOITS.items():
        feedback = (course_dir / "feedback" / student / "after_game" / "after_game.html").read_text()
        assert "A loss on a square that has no beads left keeps it at 0" in feedback
        assert private_lines_in(feedback, answer) == [], student


@pytest.mark.nbgrader
def test_real_nbgrader_without_menaces_step_grades_nothing_and_says_why(tmp_path, nbgrader_cli):
    # An nbgrader_config.py that lost menace's step runs the notebook in a kernel: the checks
    # cell stops it there, so the notebook is reported and no grade recorded.
    from nbgrader.api import Gradebook

    course_dir = tmp_path / "course"
    export_assignment(COURSE, "after_game", course_dir)
    (course_dir / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "x"\n')
    nbgrader_cli(course_dir, "generate_assignment", "after_game")
    _submit(course_dir, "ada", RIGHT)
    output = nbgrader_cli(course_dir, "autograde", "after_game", ok=False)
    assert "autograde_preprocessors" in output or "Kernel died" in output
    with contextlib.closing(Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}")) as gradebook:
        assert not gradebook.find_submission("after_game", "ada").notebooks[0].grades[0].auto_score
