"""Export a challenge as an nbgrader assignment: a course folder with one source notebook.

::

    OUT/
      nbgrader_config.py                 written once; an existing one is kept
      source/<slug>/<slug>.ipynb

The notebook, in order (nbgrader cell metadata, ``schema_version`` 3, in brackets):

1. the challenge text (markdown);
2. the answer [``solution``]: the reference between ``### BEGIN SOLUTION`` and
   ``### END SOLUTION``, which ``nbgrader generate_assignment`` replaces with a stub;
3. the checks [``locked``]: :mod:`menace_course.autograders.nbgrader`, menace's test
   API for a kernel (no sandbox, no grader process);
4. one test cell per menace test [``grade``, ``locked``, ``points`` = the test's points,
   ``grade_id`` = the test's name]. A visible example is plain code. A hidden test's cell
   shows its title and hint, and carries the hidden module and the references it needs
   between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``, which nbgrader strips
   from the students' copy and restores when it autogrades.

nbgrader scores each cell all or nothing, as ``menace grade`` scores each test, so the two
agree test by test (the project's tests check this on every wrong answer of the course).
Where they can differ, and why:

* the kernel is no sandbox: a student's code runs beside the tests and could tamper with
  them, and code that ends Python (``os._exit``) loses every cell after it;
* only each call is timed (``call_seconds``), not the file's whole budget;
* property tests need hypothesis in the kernel, and hidden tests that import the lesson's
  modules (``menace_course.lesson.noughts``) need this package there too;
* an answer that uses unseeded randomness can score differently on each run, in both;
* nbgrader's feedback HTML shows hidden test cells (jupyter/nbgrader#917).
"""

from __future__ import annotations

import ast
import inspect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import settings

from menace_course import catalog
from menace_course.autograders import nbgrader as kernel
from menace_course.catalog import Challenge
from menace_course.checking.compare import same
from menace_course.checking.suite import Case
from menace_course.checking.testing import GRADING_PROFILE
from menace_course.course import Course
from menace_course.errors import CourseError, UsageError
from menace_course.exports.gradescope import references_used
from menace_course.exports.nbgrader_cells import (
    code_cell,
    hidden_test_cell,
    markdown_cell,
    notebook,
    python_literal,
)
from menace_course.feedback import environment, hint_text
from menace_course.kit import collect_suite
from menace_course.models import Kind

TESTING = "menace_course.checking.testing"
#: The names a hidden test module may import from ``menace_course.checking.testing`` in a notebook.
NOTEBOOK_API = frozenset(
    {
        "expect",
        "expect_equal",
        "expect_unchanged",
        "hint",
        "points",
        "visible",
        "reference",
        "reference_module",
        "StudentFailure",
        "Mismatch",
        "ChangedInput",
        "Broken",
    }
)

CONFIG = '''\
"""nbgrader settings for the MENACE course (written by `menace export nbgrader`)."""

c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.course_id = "menace-course"
# Property tests call the answer dozens of times: give a test cell time.
c.Execute.timeout = 120
# Known: nbgrader's feedback HTML shows hidden test cells (jupyter/nbgrader#917).
# Check the feedback before you release it, or strip the hidden tests from it.
'''


@dataclass(frozen=True)
class NbgraderExport:
    """What :func:`export_assignment` wrote."""

    assignment: str
    notebook: Path
    config: Path
    config_written: bool
    test_cells: int
    points: float
    needs_package: bool


def grading_settings() -> dict[str, Any]:
    """menace's hypothesis grading profile, as the keyword arguments the checks cell passes on."""
    profile = settings.get_profile(GRADING_PROFILE)
    return {key: getattr(profile, key) for key in kernel.GRADING_SETTINGS}


def checks_source(call_seconds: float) -> str:
    """The checks cell: :mod:`menace_course.autograders.nbgrader` from its first import, made self-contained.

    ``compare.same`` is pasted in, and the call limit and the grading profile are the
    challenge's and menace's own, so the notebook cannot drift from ``menace grade``.
    """
    lines = Path(kernel.__file__).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("import ", "from ")))
    body: list[str] = []
    in_settings = False
    for line in lines[start:]:
        if in_settings:
            in_settings = line != "}"
        elif line.startswith("from __future__"):
            continue  # in a kernel it would change how every later cell is compiled
        elif line.endswith("# notebook: inline"):
            body.append(inspect.getsource(same).rstrip())
        elif line.startswith("CALL_SECONDS = "):
            body.append(f"CALL_SECONDS = {float(call_seconds)!r}")
        elif line.startswith("GRADING_SETTINGS"):
            body.append(f"GRADING_SETTINGS: dict[str, Any] = {grading_settings()!r}")
            in_settings = line.rstrip().endswith("{")
        else:
            body.append(line)
    header = "# Checks used by the test cells below (locked: nbgrader restores this cell).\n"
    return header + "\n".join(body).rstrip() + "\n"


def hidden_module_source(path: Path) -> str:
    """A hidden test file as the notebook runs it: its import of ``menace_course.checking.testing`` blanked.

    The checks cell provides those names instead. The blanked lines stay as empty lines,
    so every test keeps its line numbers and its source text (hypothesis derives its
    derandomized examples from that text). Imports of the lesson's own modules
    (``menace_course.lesson.noughts`` and the like) stay: the kernel then needs this package.

    Raises:
        CourseError: the file imports names the checks cell does not provide.
    """
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.Import) and any(a.name == TESTING for a in node.names):
            raise CourseError(f"{path}:{node.lineno}: write `from {TESTING} import ...` for a notebook")
        if not isinstance(node, ast.ImportFrom) or node.module not in (TESTING, "menace_course"):
            continue
        unknown = {alias.name for alias in node.names} - NOTEBOOK_API
        if unknown:
            raise CourseError(
                f"{path}:{node.lineno}: a notebook has no {', '.join(sorted(unknown))} "
                f"(it offers {', '.join(sorted(NOTEBOOK_API))})"
            )
        for index in range(node.lineno - 1, node.end_lineno or node.lineno):
            lines[index] = ""
    return "\n".join(lines) + "\n"


def needs_package(source: str) -> bool:
    """True when a hidden module still imports ``menace_course`` (the kernel must have it)."""
    return any(
        (isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "menace_course")
        or (isinstance(n, ast.Import) and any(a.name.split(".")[0] == "menace_course" for a in n.names))
        for n in ast.walk(ast.parse(source))
    )


def _test_files(course: Course, slug: str) -> dict[str, Path]:
    """Each hidden test's name (without ``test_``) and the file it is written in."""
    found: dict[str, Path] = {}
    for path in sorted((course.hidden_tests_dir / slug).glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                found[node.name.removeprefix("test_")] = path
    return found


def _example_cell(challenge: Challenge, case: Case, index: int, hint: str) -> dict[str, Any]:
    example = challenge.examples[index - 1]
    args = ", ".join(python_literal(a) for a in example.args)
    check = f"expect_equal(submission.{challenge.function}({args}), {python_literal(example.expected)}"
    lines = [
        f"# {case.title} ({case.points:g} point{'s' if case.points != 1 else ''})",
        check + (f", hint={hint!r})" if hint else ")"),
    ]
    if challenge.pure:
        lines.append("expect_unchanged()")
    return code_cell("\n".join(lines) + "\n", grade_id=case.name, points=case.points)


@dataclass(frozen=True)
class AssignmentNotebook:
    """A source notebook, the tests it holds (one cell each) and what its kernel needs."""

    document: dict[str, Any]
    cases: tuple[Case, ...]
    needs_package: bool  #: hidden tests import the lesson's modules from menace_course


def build_notebook(course: Course, challenge: Challenge) -> AssignmentNotebook:
    """The source notebook of ``challenge``: text, answer, checks, one cell per test."""
    suite = collect_suite(course, challenge)
    env = environment(course.templates_dir, "text")
    reference = course.reference_dir / f"{challenge.slug}.py"
    if not reference.is_file():
        raise CourseError(f"{reference} is missing: the notebook's solution cell needs it")
    files = _test_files(course, challenge.slug)
    intro = challenge.text.read_text(encoding="utf-8").rstrip() + (
        "\n\n---\nWrite your answer in the next cell. Each test cell below is worth its points, "
        "all or nothing; the hidden tests run when your work is graded.\n"
    )
    answer = (
        f"# Write {challenge.function}({', '.join(challenge.params)}) here.\n"
        "### BEGIN SOLUTION\n" + reference.read_text(encoding="utf-8").rstrip() + "\n### END SOLUTION\n"
    )
    cells = [
        markdown_cell(intro, cell_id="challenge"),
        code_cell(answer, grade_id="answer", solution=True),
        code_cell(checks_source(challenge.limits.call_seconds), grade_id="checks", locked=True),
    ]
    index = 0
    package = False
    for case in suite.cases:
        words = hint_text(env, case.hint)
        if case.kind is Kind.EXAMPLE:
            index += 1
            cells.append(_example_cell(challenge, case, index, words))
            continue
        path = files.get(case.name)
        if path is None:
            raise CourseError(f"cannot find test_{case.name} in {course.hidden_tests_dir / challenge.slug}")
        references = {
            name: (course.reference_dir / f"{name}.py").read_text(encoding="utf-8")
            for name in sorted(references_used(path))
        }
        label = f"<hidden_tests/{challenge.slug}/{path.name}>"
        source = hidden_module_source(path)
        package = package or needs_package(source)
        cells.append(hidden_test_cell(case, words, source, label, references))
    return AssignmentNotebook(notebook(cells), suite.cases, package)


def export_assignment(course: Course, slug: str, out_dir: Path, *, force: bool = False) -> NbgraderExport:
    """Write (or add) the assignment ``slug`` to the nbgrader course folder ``out_dir``.

    Raises:
        UnknownChallenge: no challenge ``slug``.
        UsageError: ``out_dir`` is a file, or the assignment's source exists and not ``force``.
        CourseError: the challenge's tests cannot be written as notebook cells.
    """
    challenge = catalog.load_challenge(course, slug)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"{out_dir} is a file; give a folder for the nbgrader course")
    target = out_dir / "source" / slug / f"{slug}.ipynb"
    if target.exists() and not force:
        raise UsageError(f"{target} already exists; pass --force to replace it")
    built = build_notebook(course, challenge)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.write_text(json.dumps(built.document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(target)
    config = out_dir / "nbgrader_config.py"
    config_written = not config.exists()
    if config_written:
        config.write_text(CONFIG, encoding="utf-8")
    return NbgraderExport(
        assignment=slug,
        notebook=target,
        config=config,
        config_written=config_written,
        test_cells=len(built.cases),
        points=sum(c.points for c in built.cases),
        needs_package=built.needs_package,
    )
