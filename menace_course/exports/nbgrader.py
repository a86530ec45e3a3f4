"""Export a challenge as an nbgrader assignment: a course folder with one source notebook.

::

    OUT/
      nbgrader_config.py                 written once; an existing one is kept
      menace.json                        where the menace course is (read when grading)
      source/<slug>/<slug>.ipynb

The notebook, in order (nbgrader cell metadata, ``schema_version`` 3, in brackets):

1. the challenge text (markdown);
2. the answer [``solution``]: the reference between ``### BEGIN SOLUTION`` and
   ``### END SOLUTION``, which ``nbgrader generate_assignment`` replaces with a stub;
3. the checks [``locked``]: ``check_notebook(slug)`` from
   :mod:`menace_course.autograders.nbgrader`, which checks the code of the cells run
   before it through menace's own path (sandbox, tests, verdicts);
4. one test cell per menace test [``grade``, ``locked``, ``points`` = the test's points,
   ``grade_id`` = the test's name]: its title (and a hidden test's hint) as a comment,
   and ``checks.test(name)``, which passes or fails with what menace says of that test.

No test code, input, expected value or reference line is in any cell except the answer's
solution region (which the students' copy never has): nbgrader's feedback shows names,
results and hints only, and since the cells are the same in the source and in the
students' copy, nbgrader has no checksum to complain about.

The grading kernel needs this package (with hypothesis, its dependency) and the course
with the hidden tests: ``menace.json`` names the course it was exported from, and
``$MENACE_COURSE`` overrides it. Without them the kernel says what is missing and stops,
so ``nbgrader autograde`` reports the notebook instead of recording a wrong grade.
Students' kernels need the student kit, for the examples.

nbgrader scores each cell all or nothing, as ``menace grade`` scores each test, and the
verdicts are menace's own, so the two agree test by test. Where they can differ, and why:

* nbgrader runs the student's cells in the kernel that runs the checks: code that ends
  Python (``os._exit``) loses every cell after it, and code that tampers with the kernel
  can tamper with what the cells report (``menace grade`` on the submitted notebooks never
  runs them outside the sandbox);
* the code checked is the code of the cells as they were run, in that order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from menace_course import catalog
from menace_course.atomic import write_atomic
from menace_course.autograders.nbgrader import MARK, MARKER_FILE
from menace_course.catalog import Challenge
from menace_course.checking.suite import Case
from menace_course.course import Course
from menace_course.errors import CourseError, UsageError
from menace_course.exports.nbgrader_cells import code_cell, markdown_cell, notebook
from menace_course.feedback import environment, hint_text
from menace_course.kit import collect_suite
from menace_course.models import Kind

CONFIG = '''\
"""nbgrader settings for the MENACE course (written by `menace export nbgrader`)."""

c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.course_id = "menace-course"
# The checks cell runs every test of the challenge in menace's sandbox: give it time.
c.Execute.timeout = 120
# The kernel that runs `nbgrader autograde` needs menace-course installed, and the course
# with the hidden tests: menace.json (beside this file) names it, MENACE_COURSE overrides it.
'''

#: What ``menace export nbgrader`` says the grading kernel needs (also in the command's output).
KERNEL_NEEDS = (
    "the kernel that runs nbgrader autograde needs menace-course installed (it brings "
    "hypothesis) and the course with the hidden tests: {marker} names {course} "
    "(set MENACE_COURSE to use another); students' kernels need the student kit (menace kit)"
)


@dataclass(frozen=True)
class NbgraderExport:
    """What :func:`export_assignment` wrote."""

    assignment: str
    notebook: Path
    config: Path
    config_written: bool
    marker: Path  #: ``menace.json``: the course the grading kernel checks against
    test_cells: int
    points: float


def _points(case: Case) -> str:
    return f"{case.points:g} point{'s' if case.points != 1 else ''}"


def result_cell(case: Case, hint_words: str) -> dict[str, Any]:
    """One test's cell: its title (and a hidden test's hint) and the call that reads its result."""
    if case.kind is Kind.EXAMPLE or case.is_visible:
        lines = [f"{MARK} {case.title} ({_points(case)})"]
    else:
        lines = [f"{MARK} hidden test ({_points(case)}): {case.title}"]
        if hint_words:
            lines.append("# If it fails: " + " ".join(hint_words.split()))
    lines.append(f"checks.test({case.name!r})")
    return code_cell("\n".join(lines) + "\n", grade_id=case.name, points=case.points)


def checks_cell(challenge: Challenge) -> dict[str, Any]:
    """The locked cell that checks the answer above it with menace."""
    source = (
        f"{MARK} checks (locked). menace checks the code of the cells above in its sandbox, with\n"
        "# the course's tests; each cell below shows one test's result.\n"
        "from menace_course.autograders.nbgrader import check_notebook\n\n"
        f"checks = check_notebook({challenge.slug!r})\n"
    )
    return code_cell(source, grade_id="checks", locked=True)


@dataclass(frozen=True)
class AssignmentNotebook:
    """A source notebook and the tests it holds (one cell each)."""

    document: dict[str, Any]
    cases: tuple[Case, ...]


def build_notebook(course: Course, challenge: Challenge) -> AssignmentNotebook:
    """The source notebook of ``challenge``: text, answer, checks, one cell per test."""
    suite = collect_suite(course, challenge)
    env = environment(course.templates_dir, "text")
    reference = course.reference_dir / f"{challenge.slug}.py"
    if not reference.is_file():
        raise CourseError(f"{reference} is missing: the notebook's solution cell needs it")
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
        checks_cell(challenge),
    ]
    cells += [result_cell(case, hint_text(env, case.hint)) for case in suite.cases]
    return AssignmentNotebook(notebook(cells), suite.cases)


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
    write_atomic(target, json.dumps(built.document, indent=1, ensure_ascii=False) + "\n")
    config = out_dir / "nbgrader_config.py"
    config_written = not config.exists()
    if config_written:
        write_atomic(config, CONFIG)
    marker = out_dir / MARKER_FILE
    write_atomic(marker, json.dumps({"course": str(course.root)}, indent=2) + "\n")
    return NbgraderExport(
        assignment=slug,
        notebook=target,
        config=config,
        config_written=config_written,
        marker=marker,
        test_cells=len(built.cases),
        points=sum(c.points for c in built.cases),
    )
