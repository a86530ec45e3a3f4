"""menace's step in ``nbgrader autograde``: grade the notebook file in the sandbox, start no kernel.

``nbgrader autograde`` first *sanitizes* a submission (clears its outputs, restores every
locked cell from the source), then runs ``Autograde.autograde_preprocessors`` on it:
``Execute`` runs every cell in a Jupyter kernel, and ``SaveAutoGrades`` scores each test
cell (0 if its output holds an error, else its points). A kernel that runs a student's
cells belongs to the student (see :mod:`menace_course.autograders.nbgrader`), so for a
menace notebook :class:`GradeWithMenace`, in ``Execute``'s place, does this instead:

1. it recognises the notebook by its checks cell **in nbgrader's gradebook** (the source
   the instructor generated, not the submission): a notebook whose source has no menace
   checks cell is run by nbgrader's own ``Execute``, as nbgrader always does;
2. it writes the sanitized notebook to bytes and checks that file through
   :func:`~menace_course.checking.pipeline.check_submission` in bubblewrap, against the
   course ``menace.json`` (or ``$MENACE_COURSE``) names, hidden tests included, in a
   grader process under menace's watchdog (:mod:`menace_course.pool`);
3. it gives every test cell menace's result for the test of its ``grade_id`` as output:
   a pass as printed text, a failure as an error; the checks cell gets the whole feedback.

nbgrader's own steps then score the cells and save the grades. The student's code ran only
in the sandboxed child, which sees no course file, no gradebook and no network; nothing of
the student's ran in nbgrader's process or in a kernel. When menace cannot grade (no
hidden tests, no sandbox, a fault of the grader), the step raises, and nbgrader reports
the notebook and records no grade for it.

``nbgrader_config.py`` (written by ``menace export nbgrader``)::

    c.Autograde.autograde_preprocessors = AUTOGRADE_PREPROCESSORS   # the list below
    c.GradeWithMenace.sandbox = "bwrap"          # "process" needs accept_no_sandbox = True
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbformat import NotebookNode
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import Execute
from traitlets import Bool, Enum  # type: ignore[import-not-found,unused-ignore]  # with nbgrader

from menace_course.autograders.nbgrader import (
    MARK,
    Checked,
    KernelNotReady,
    Place,
    check_file,
    course_and_suite,
    student_texts,
    where_we_are,
)
from menace_course.models import SandboxKind, Status, SubmissionReport

#: The ``grade_id`` of the cell that names the challenge (``menace export nbgrader`` writes it).
CHECKS_CELL = "checks"
_SLUG = re.compile(r"^checks = check_notebook\('([A-Za-z0-9_-]+)'\)$", re.M)


def challenge_of(db_url: str, notebook: str, assignment: str) -> str | None:
    """The challenge a notebook's source checks against; None if it is not a menace notebook.

    Read from nbgrader's gradebook, which holds the instructor's source cells: what a
    student did to their copy (deleting or editing the checks cell) cannot change it.
    """
    with Gradebook(db_url) as gradebook:
        try:
            source = gradebook.find_source_cell(CHECKS_CELL, notebook, assignment).source
        except MissingEntry:
            return None
    text = str(source)
    found = _SLUG.search(text)
    if not text.startswith(MARK) or found is None:
        return None
    return found.group(1)


@dataclass(frozen=True)
class _Task:
    """One notebook to check in a grader process (picklable)."""

    course: Path
    slug: str
    name: str
    data: bytes
    sandbox: SandboxKind


def _check(task: _Task) -> SubmissionReport:
    """Check the notebook (in the pool's grader process)."""
    course, suite = course_and_suite(task.slug, Place(task.course, grading=True))
    return check_file(task.name, task.data, course, suite, task.sandbox).report


def grade_notebook(data: bytes, name: str, slug: str, course_root: Path, sandbox: SandboxKind) -> Checked:
    """Check the notebook file ``data`` against ``slug`` under menace's watchdog.

    Raises:
        KernelNotReady: menace cannot grade it (the message says why, for the instructor).
    """
    from menace_course.checking.pipeline import stopped_report, time_allowed
    from menace_course.pool import GraderLost, Graders, Lost

    course, suite = course_and_suite(slug, Place(course_root, grading=True))

    def lost(task: _Task, lost: GraderLost) -> SubmissionReport:
        if lost.reason is not Lost.TIMEOUT:
            raise KernelNotReady(f"the grader failed:\n{lost.detail}")
        message = f"checking it did not finish within {lost.seconds:g} seconds, so it was stopped"
        return stopped_report(suite, Path(name), sandbox, Status.TIMEOUT, message)

    limit = time_allowed(suite.challenge.limits)
    with Graders(1) as graders:
        task = _Task(course.root, slug, name, data, sandbox)
        (report,) = graders.run(_check, [task], on_lost=lost, seconds=lambda _: limit)
    return Checked(report, course)


def _passed(text: str) -> Any:
    """Printed text: nbgrader gives the cell its points."""
    return NotebookNode({"output_type": "stream", "name": "stdout", "text": text})  # type: ignore[no-untyped-call,unused-ignore]


def _failed(text: str) -> Any:
    """An error: nbgrader gives the cell 0 (its feedback shows the lines as a traceback)."""
    lines = text.rstrip("\n").splitlines() or ["failed"]
    error = {"output_type": "error", "ename": "failed", "evalue": lines[0], "traceback": lines}
    return NotebookNode(error)  # type: ignore[no-untyped-call,unused-ignore]


def fill_cells(nb: Any, checked: Checked) -> None:
    """Give each test cell menace's result for its test, and the checks cell the feedback.

    Every test cell's outputs are replaced, whatever they held. A test cell whose test
    menace does not have means the course and the assignment differ: nothing is graded.

    Raises:
        KernelNotReady: a test cell names a test the challenge does not have.
    """
    report = checked.report
    texts = student_texts(report, checked.course)
    outcomes = {t.name: t.outcome.value for t in report.tests}
    for cell in nb.cells:
        marks = cell.get("metadata", {}).get("nbgrader", {})
        grade_id = marks.get("grade_id")
        if cell.get("cell_type") != "code" or grade_id is None:
            continue
        if grade_id == CHECKS_CELL:
            cell.outputs = [_passed(texts.summary)]
        elif marks.get("grade"):
            if grade_id not in outcomes:
                raise KernelNotReady(
                    f"the notebook has a test cell {grade_id!r} that {report.challenge} does not "
                    "have: export the assignment again from this course"
                )
            passed = outcomes[grade_id] == "passed"
            cell.outputs = [_passed(texts.tests[grade_id]) if passed else _failed(texts.tests[grade_id])]


class GradeWithMenace(Execute):  # type: ignore[misc]  # nbgrader is untyped
    """``Execute`` for nbgrader's notebooks, menace's sandboxed check for menace's."""

    sandbox = Enum(
        ["bwrap", "process"],
        default_value="bwrap",
        help="menace's sandbox for the students' code: bwrap (bubblewrap), or process "
        "(no isolation: only with accept_no_sandbox).",
    ).tag(config=True)
    accept_no_sandbox = Bool(
        False, help="Allow sandbox = 'process', which runs students' code without isolation."
    ).tag(config=True)

    def preprocess(self, nb: Any, resources: Any, retries: Any = None) -> tuple[Any, Any]:
        """Grade a menace notebook with menace; run any other notebook as nbgrader does."""
        info = resources["nbgrader"]
        slug = challenge_of(info["db_url"], info["notebook"], info["assignment"])
        if slug is None:
            return super().preprocess(nb, resources, retries)  # type: ignore[no-any-return]
        if self.sandbox == "process" and not self.accept_no_sandbox:
            raise KernelNotReady(
                "GradeWithMenace.sandbox = 'process' runs students' code without isolation; "
                "set c.GradeWithMenace.accept_no_sandbox = True if you accept that"
            )
        from menace_course.errors import MenaceError
        from menace_course.sandbox.launch import choose_kind

        place = where_we_are()
        if place.course is None:
            raise KernelNotReady(
                f"no menace.json here ({Path.cwd()}): run nbgrader in the folder menace export "
                "nbgrader wrote, or set MENACE_COURSE to the instructor's course folder"
            )
        try:
            kind = choose_kind(self.sandbox)
        except MenaceError as error:
            raise KernelNotReady(str(error)) from None
        data = json.dumps(nb).encode()  # the notebook as nbgrader holds it, locked cells restored
        name = f"{info['notebook']}.ipynb"
        self.log.info("menace: checking %s against %s in its sandbox (%s)", name, slug, kind)
        checked = grade_notebook(data, name, slug, place.course, kind)
        for line in checked.report.grader_log:
            self.log.warning("menace: %s", line)
        if checked.report.needs_review:
            self.log.warning(
                "menace: %s for %s needs review: it reached into the grader, or tried to",
                name,
                info["student"],
            )
        fill_cells(nb, checked)
        return nb, resources
