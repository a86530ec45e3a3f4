"""menace in an exported nbgrader notebook: how it is graded, and what its cells call.

**Grading never runs the student's cells in a kernel.** In ``nbgrader autograde`` the
notebook FILE, as nbgrader holds it once it has restored the locked cells from the
source, is checked through menace's one submission path
(:func:`~menace_course.checking.pipeline.check_submission`, in bubblewrap, with the
course's hidden tests: the same verdicts as ``menace check`` and ``menace grade``), and
each test cell is given menace's result as its output: a pass as text, a failure as an
error, which nbgrader scores 0. That step,
:class:`~menace_course.autograders.nbgrader_autograde.GradeWithMenace`, takes the place of
nbgrader's ``Execute`` (``nbgrader_config.py``, written by ``menace export nbgrader``), so
no Jupyter kernel starts for a menace notebook. A kernel that ran a student's cells would
be theirs: a cell can rewrite the cells after it (IPython's input transformers), swallow
every error (``set_custom_exc``), replace this module's functions, rewrite the history
the code would be read from, or read the instructor's files (``reference/``,
``hidden_tests/``, the gradebook) and print them into the feedback. None of that reaches
a grade now: the student's code runs only in menace's sandbox, which has none of those
files, and what the test cells show is built here from the report.

**A student's own run** (or the instructor's ``nbgrader validate``) does run the cells in
a kernel: the checks cell calls :func:`check_notebook`, which checks the code of the
cells run so far (read from the kernel's history) in menace's sandbox, with the course
that ``menace check`` finds (the student kit: examples only; the hidden tests' cells say
that they run when the work is graded), or the one ``$MENACE_COURSE`` or the
``menace.json`` above the notebook names. That is feedback for the person who runs it,
never a grade. Under ``nbgrader autograde`` (which sets ``NBGRADER_EXECUTION``), where a
kernel should never have been started, it refuses and stops the kernel, so a
configuration that lost menace's step reports every notebook instead of grading it.

A notebook is checked as menace checks any ``.ipynb``: its code cells in order (nbgrader's
test and locked cells left out), a cell that stops is left out as Jupyter would
(:mod:`menace_course.checking.notebook`). A correct function followed by a top-level
``1/0`` in a later cell scores as the function deserves; in a ``.py`` file, where Python
stops the whole import, it does not load.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from menace_course.checking.suite import Suite
    from menace_course.course import Course
    from menace_course.models import SandboxKind, SubmissionReport

#: The first line of every cell the export writes: such cells are not the student's code.
MARK = "# menace:"
#: The file ``menace export nbgrader`` writes at the nbgrader course's root.
MARKER_FILE = "menace.json"
#: The import path nbgrader_config.py names this step by.
GRADE_WITH_MENACE = "menace_course.autograders.nbgrader_autograde.GradeWithMenace"
#: nbgrader 0.9's ``Autograde.autograde_preprocessors``, with menace's step for ``Execute``.
AUTOGRADE_PREPROCESSORS = (
    GRADE_WITH_MENACE,
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
)
#: What nbgrader sets in the environment of what it runs while it autogrades.
AUTOGRADING = ("NBGRADER_EXECUTION", "autograde")
#: Said (and the kernel stopped) when nbgrader autograde runs a menace notebook in a kernel.
NOT_IN_A_KERNEL = (
    "nbgrader autograde ran this notebook in a Jupyter kernel, where the student's cells "
    "could change what is graded. menace grades its notebooks itself, in its sandbox: "
    "nbgrader_config.py must list menace's step in c.Autograde.autograde_preprocessors "
    "(menace export nbgrader writes it, or says what to add)"
)


class KernelNotReady(RuntimeError):
    """menace cannot check here; the message says what is missing and how to fix it."""


@dataclass(frozen=True)
class Place:
    """The course to check against, and whether an instructor's setting named it."""

    course: Path | None  #: None: the course ``menace check`` finds (the student kit)
    grading: bool  #: named by ``$MENACE_COURSE`` or ``menace.json``: it must have the hidden tests


def where_we_are(start: Path | None = None) -> Place:
    """The course named by ``$MENACE_COURSE``, else by a ``menace.json`` above ``start``."""
    explicit = os.environ.get("MENACE_COURSE")
    if explicit:
        return Place(Path(explicit), grading=True)
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        marker = folder / MARKER_FILE
        if marker.is_file():
            try:
                course = json.loads(marker.read_text(encoding="utf-8"))["course"]
            except (OSError, ValueError, KeyError, TypeError) as error:
                raise KernelNotReady(
                    f"{marker} cannot be read ({error}): export the assignment again"
                ) from None
            return Place(Path(course), grading=True)
    return Place(None, grading=False)


# -- one report, the texts a student reads ------------------------------------------------------


@dataclass(frozen=True)
class StudentTexts:
    """What a student reads of one report: the whole feedback, and each test's part of it."""

    summary: str  #: the feedback ``menace check`` prints (the checks cell's output)
    tests: dict[str, str]  #: test name → the text under its cell (a hidden test: title and hint)


def student_texts(report: SubmissionReport, course: Course) -> StudentTexts:
    """The report in the course's words, as every other way of showing it words it."""
    from menace_course.exports.gradescope_results import output_of_test
    from menace_course.feedback import environment, render
    from menace_course.student_view import student_view

    env = environment(course.templates_dir, "text")
    return StudentTexts(
        summary=render(report, course.templates_dir, "text"),
        tests={t.name: output_of_test(t, report.function, env) for t in student_view(report).tests},
    )


# -- checking a notebook's code -------------------------------------------------------------------


@dataclass(frozen=True)
class Checked:
    """A notebook checked: the report and the course it was checked against."""

    report: SubmissionReport
    course: Course


def _imports() -> Any:
    """The package's checking code, or a clear message when this Python lacks a dependency."""
    try:
        return importlib.import_module("menace_course.checking.pipeline")
    except ImportError as error:  # hypothesis, jinja2, ...: the package's own dependencies
        raise KernelNotReady(
            f"{error}: install menace-course with its dependencies in this Python "
            f"({sys.executable} -m pip install menace-course)"
        ) from None


def course_and_suite(slug: str, place: Place) -> tuple[Course, Suite]:
    """The course ``place`` names (with the hidden tests, if an instructor named it) and its suite.

    Raises:
        KernelNotReady: the course or the challenge cannot be loaded, or lacks its hidden tests.
    """
    _imports()
    from menace_course.checking.suite import load_suite
    from menace_course.course import Course, find_course
    from menace_course.errors import MenaceError

    try:
        course = Course(place.course) if place.course else find_course()
        if place.grading and not course.has_hidden_tests:
            raise KernelNotReady(
                f"the course at {course.root} has no hidden tests: set MENACE_COURSE (or the "
                f"course in {MARKER_FILE}) to the instructor's course folder"
            )
        return course, load_suite(course, slug)
    except MenaceError as error:
        raise KernelNotReady(str(error)) from None


def check_file(name: str, data: bytes, course: Course, suite: Suite, sandbox: SandboxKind) -> Checked:
    """Check one notebook file through menace's one path (sandbox, tests, verdicts).

    Raises:
        KernelNotReady: the grader itself failed (its log is in the message, for the instructor).
    """
    pipeline = _imports()
    report: SubmissionReport = pipeline.check_submission((name, data), suite, sandbox)
    if report.status.value == "grader_error":
        raise KernelNotReady("the grader failed: " + " ".join(report.grader_log)[-2000:])
    return Checked(report, course)


# -- a student's own run, in their kernel ----------------------------------------------------------


def executed_cells() -> list[str]:
    """The code of the cells this kernel has run, in order, without menace's own cells."""
    try:
        shell = importlib.import_module("IPython").get_ipython()
    except ImportError:
        shell = None
    if shell is None:
        raise KernelNotReady("check_notebook runs in a Jupyter notebook's kernel")
    # The raw text of each cell run, in the order it ran; entry 0 is always empty, and the
    # running checks cell starts with MARK like every cell the export wrote.
    history: list[str] = list(shell.history_manager.input_hist_raw)
    return [cell for cell in history[1:] if cell.strip() and not cell.lstrip().startswith(MARK)]


def notebook_bytes(cells: list[str]) -> bytes:
    """The cells as a notebook file, for menace's loader."""
    document = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c} for c in cells],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document).encode()


def _stop_kernel(message: str) -> None:
    """Say why, then end the kernel: nbgrader reports the notebook and grades nothing."""
    print(f"menace: cannot grade here: {message}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(3)


class NotebookChecks:
    """menace's report on the code run so far, read test by test by the test cells."""

    def __init__(self, checked: Checked, complete: bool) -> None:
        """Keep the report and each test's text; ``complete``: the course had the hidden tests."""
        self.report = checked.report
        self.outputs = student_texts(checked.report, checked.course).tests
        self.complete = complete

    def test(self, name: str) -> None:
        """Pass when menace's test ``name`` passed; else fail with what menace says about it.

        A hidden test's failure says its title and hint, never its inputs or expected value.
        """
        results = {t.name: t for t in self.report.tests}
        result = results.get(name)
        if result is None:
            if self.complete:
                raise KernelNotReady(f"menace has no test {name!r} for {self.report.challenge}")
            print(f"– a hidden check: it runs when your work is graded ({name.replace('_', ' ')})")
            return
        if result.outcome.value == "passed":
            print(self.outputs[name], end="")
            return
        raise AssertionError("\n" + self.outputs[name]) from None


def check_notebook(slug: str) -> NotebookChecks:
    """Check the code of the cells run so far against the challenge ``slug`` (the checks cell).

    Feedback for whoever runs the notebook, never a grade: under ``nbgrader autograde`` it
    stops the kernel instead (:data:`NOT_IN_A_KERNEL`).

    Raises:
        KernelNotReady: menace cannot check here (it says why).
    """
    if os.environ.get(AUTOGRADING[0]) == AUTOGRADING[1]:
        _stop_kernel(NOT_IN_A_KERNEL)
    return _check(slug, executed_cells(), where_we_are())


def _check(slug: str, cells: list[str], place: Place) -> NotebookChecks:
    course, suite = course_and_suite(slug, place)
    from menace_course.errors import MenaceError
    from menace_course.sandbox.launch import choose_kind

    try:
        kind = choose_kind("auto")
    except MenaceError as error:
        raise KernelNotReady(str(error)) from None
    checked = check_file("notebook.ipynb", notebook_bytes(cells), course, suite, kind)
    return NotebookChecks(checked, complete=course.has_hidden_tests)
