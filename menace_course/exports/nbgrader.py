"""Export a challenge as an nbgrader assignment: a course folder with one source notebook.

::

    OUT/
      nbgrader_config.py                 written once; an existing one must name menace's step
      menace.json                        where the menace course is (read when grading)
      MENACE.md                          how these notebooks are graded (for the instructor)
      source/<slug>/<slug>.ipynb

The notebook, in order (nbgrader cell metadata, ``schema_version`` 3, in brackets):

1. the challenge text (markdown);
2. the answer [``solution``]: the reference between ``### BEGIN SOLUTION`` and
   ``### END SOLUTION``, which ``nbgrader generate_assignment`` replaces with a stub;
3. the checks [``locked``, ``grade_id`` ``checks``]: ``check_notebook(slug)`` from
   :mod:`menace_course.autograders.nbgrader`, which gives whoever runs the notebook
   menace's feedback on the cells above it (a student's own run: never a grade);
4. one test cell per menace test [``grade``, ``locked``, ``points`` = the test's points,
   ``grade_id`` = the test's name]: its title (and a hidden test's hint) as a comment,
   and ``checks.test(name)``, which passes or fails with what menace says of that test.

**How it is graded.** ``nbgrader_config.py`` puts menace's step
(:class:`~menace_course.autograders.nbgrader_autograde.GradeWithMenace`) in the place of
nbgrader's ``Execute``: ``nbgrader autograde`` starts no kernel for these notebooks; the
notebook file is checked in menace's sandbox (bubblewrap) with the course's hidden tests,
and each test cell receives menace's result as its output, which nbgrader scores. A
student's cell never runs outside the sandbox while it is graded, so it can neither change
the grade (rewrite the cells after it, swallow errors, patch menace) nor read the course's
private files (``reference/``, ``hidden_tests/``, the gradebook). An existing
``nbgrader_config.py`` is never rewritten: if it does not name menace's step, the export
stops and prints the lines to add, because without them nbgrader would run the students'
cells in a kernel and take its word for the grades.

No test code, input, expected value or reference line is in any cell except the answer's
solution region (which the students' copy never has): nbgrader's feedback shows names,
results and hints only, and since the cells are the same in the source and in the
students' copy, nbgrader has no checksum to complain about.

nbgrader's Python needs this package (with hypothesis) and bubblewrap; ``menace.json``
names the course it was exported from (``$MENACE_COURSE`` overrides it), which must have
the hidden tests: otherwise grading stops with a message and records no grade. Students'
kernels need the student kit, for the examples.

nbgrader scores each cell all or nothing, as ``menace grade`` scores each test, and the
verdicts are menace's own, from the same file, so the two agree test by test. The
autograded notebook (and so the feedback) holds no output of the student's own cells,
since they were not run in a kernel: each test cell shows menace's words for its test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from menace_course import catalog
from menace_course.atomic import write_atomic
from menace_course.autograders.nbgrader import AUTOGRADE_PREPROCESSORS, GRADE_WITH_MENACE, MARK, MARKER_FILE
from menace_course.catalog import Challenge
from menace_course.checking.suite import Case
from menace_course.course import Course
from menace_course.errors import CourseError, UsageError
from menace_course.exports.nbgrader_cells import code_cell, markdown_cell, notebook
from menace_course.feedback import environment, hint_text
from menace_course.kit import collect_suite
from menace_course.models import TestKind

#: What nbgrader_config.py must hold for menace's notebooks to be graded by menace.
GRADING_LINES = (
    "# menace grades its notebooks itself, in its sandbox, in the place of nbgrader's Execute:\n"
    "# no kernel runs a student's cells while they are graded (see MENACE.md).\n"
    "c.Autograde.autograde_preprocessors = [\n"
    + "".join(f"    {name!r},\n" for name in AUTOGRADE_PREPROCESSORS)
    + "]\n"
)

CONFIG = (
    '''"""nbgrader settings for the MENACE course (written by `menace export nbgrader`)."""

c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.course_id = "menace-course"
'''
    + GRADING_LINES
)

#: The notes written beside the config, for the instructor.
NOTES_FILE = "MENACE.md"
README = """\
# How menace's notebooks are graded here

`menace export nbgrader` wrote `source/<challenge>/<challenge>.ipynb`, `nbgrader_config.py`
(if there was none), `menace.json` (the menace course: {course}) and this file.

* `nbgrader autograde` starts **no Jupyter kernel** for these notebooks. `nbgrader_config.py`
  puts menace's step (`{step}`) in the place of nbgrader's `Execute`: it checks the
  submitted notebook file, as nbgrader holds it after restoring the locked cells, in
  menace's sandbox (bubblewrap) with the course's hidden tests, the same check as
  `menace check` and `menace grade`, and writes each test's result into its test cell,
  which nbgrader then scores (an error: 0; else the cell's points).
* Why not a kernel: a student's cell that runs in the grading kernel owns it. It can
  rewrite the cells after it, swallow every error, replace menace's functions, rewrite
  the history the code was read from, or read `reference/` and `hidden_tests/` and print
  them into the feedback; each of these scored 15/15 for an answer that did nothing.
  Now the student's code runs only in the sandbox, which sees no course file, no
  gradebook and no network.
* Keep the lines in `nbgrader_config.py`: without them nbgrader runs the cells in a
  kernel, where menace's checks cell refuses to grade and stops the kernel (so every
  notebook is reported, none graded). Other notebooks of this nbgrader course (whose
  source has no menace checks cell) are run by nbgrader's own `Execute`, as always.
* nbgrader's Python needs `menace-course` installed and bubblewrap (`bwrap`). The course
  in `menace.json` (or `MENACE_COURSE`) must have the hidden tests; without them, or
  without a sandbox, nbgrader reports the notebook and records no grade.
* The autograded notebook and its feedback show no output of the student's own cells
  (they were not run); each test cell shows menace's words for its test: a hidden test's
  title and hint, never its inputs or expected values.
* A test cell a student deleted gets no automatic score: nbgrader flags it for manual
  grading, and it counts 0 until then (so deleting a failing cell gains nothing). Leave
  `OverwriteCells.add_missing_cells` off: nbgrader 0.9.6 fails on it when the cell before
  the deleted one is the locked checks cell.
* Students' own runs (Jupyter, with the student kit) check the cells they ran, for
  feedback; that is never a grade.
"""

#: What ``menace export nbgrader`` says grading needs (also in the command's output).
KERNEL_NEEDS = (
    "nbgrader autograde grades these notebooks with menace in its sandbox, starting no kernel "
    "(nbgrader_config.py names menace's step; see MENACE.md): nbgrader's Python needs "
    "menace-course installed, and bubblewrap, and the course with the hidden tests: {marker} "
    "names {course} (set MENACE_COURSE to use another); students' kernels need the student "
    "kit (menace kit)"
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
    if case.kind is TestKind.EXAMPLE or case.is_visible:
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
        UsageError: ``out_dir`` is a file, the assignment's source exists and not ``force``,
            or an existing ``nbgrader_config.py`` does not name menace's grading step.
        CourseError: the challenge's tests cannot be written as notebook cells.
    """
    challenge = catalog.load_challenge(course, slug)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"{out_dir} is a file; give a folder for the nbgrader course")
    target = out_dir / "source" / slug / f"{slug}.ipynb"
    if target.exists() and not force:
        raise UsageError(f"{target} already exists; pass --force to replace it")
    config = out_dir / "nbgrader_config.py"
    config_written = not config.exists()
    if not config_written and GRADE_WITH_MENACE not in config.read_text(encoding="utf-8", errors="replace"):
        raise UsageError(
            f"{config} does not name menace's grading step, so nbgrader would grade these "
            "notebooks by running the students' cells in a kernel, which they can make pass. "
            "Add these lines to it (they are kept as you leave them), then export again:\n\n" + GRADING_LINES
        )
    built = build_notebook(course, challenge)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, json.dumps(built.document, indent=1, ensure_ascii=False) + "\n")
    if config_written:
        write_atomic(config, CONFIG)
    marker = out_dir / MARKER_FILE
    write_atomic(marker, json.dumps({"course": str(course.root)}, indent=2) + "\n")
    write_atomic(out_dir / NOTES_FILE, README.format(course=course.root, step=GRADE_WITH_MENACE))
    return NbgraderExport(
        assignment=slug,
        notebook=target,
        config=config,
        config_written=config_written,
        marker=marker,
        test_cells=len(built.cases),
        points=sum(c.points for c in built.cases),
    )
