"""What an exported nbgrader notebook's cells call, in the Jupyter kernel that runs them.

The notebook holds no test code, no inputs, no expected values and no reference: its
checks cell calls :func:`check_notebook`, which sends the code of the cells run so far
through menace's one submission path (:func:`~menace_course.checking.pipeline.check_submission`:
the sandbox, the course's tests, the same verdicts as ``menace check`` and ``menace grade``).
Each test cell then calls :meth:`NotebookChecks.test`, which passes or raises with what
menace's feedback says about that test: for a hidden test, its title and hint only.
So nbgrader's feedback shows names, results and hints, never a hidden test.

Where it runs decides what it checks:

* **Grading** (``nbgrader autograde``): the course named by ``$MENACE_COURSE``, else by the
  ``menace.json`` that ``menace export nbgrader`` wrote at the nbgrader course's root. It
  must have the challenge's hidden tests. A kernel without what grading needs (this
  package, hypothesis, the hidden tests) does not grade: it says what is missing and
  stops the kernel, so ``nbgrader autograde`` reports an error for the notebook instead
  of recording a wrong grade.
* **A student's own run**: the course found as ``menace check`` finds it (the student kit
  installed with the package). The examples run; the hidden tests' cells say that they
  run when the work is graded.

A notebook is checked as menace checks any ``.ipynb``: its code cells in order, a cell
that stops is left out as Jupyter would (:mod:`menace_course.checking.notebook`). A
correct function followed by a top-level ``1/0`` in a later cell (or in the same cell,
after the ``def``) scores as the function deserves, in ``menace check`` and in nbgrader
alike; in a ``.py`` file, where Python stops the whole import, it does not load.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The first line of every cell the export writes: such cells are not the student's code.
MARK = "# menace:"
#: The file ``menace export nbgrader`` writes at the nbgrader course's root.
MARKER_FILE = "menace.json"


class KernelNotReady(RuntimeError):
    """The grading kernel lacks something it needs; the message says what and how to fix it."""


@dataclass(frozen=True)
class Place:
    """Where the checks run: the course, and whether this is nbgrader grading."""

    course: Path | None
    grading: bool


def where_we_are(start: Path | None = None) -> Place:
    """Grading when ``$MENACE_COURSE`` is set or a ``menace.json`` is found above ``start``."""
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


def executed_cells() -> list[str]:
    """The code of the cells this kernel has run, in order, without menace's own cells."""
    try:
        shell = importlib.import_module("IPython").get_ipython()
    except ImportError:
        shell = None
    if shell is None:
        raise KernelNotReady("check_notebook runs in a Jupyter notebook's kernel")
    # The raw text of each cell run, in the order it ran (nbgrader runs them top to bottom);
    # entry 0 is always empty, and the running checks cell starts with MARK like every cell
    # the export wrote, so none of those is taken for the student's code.
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
    """Say what is missing, then end the kernel: nbgrader reports the notebook, grades nothing."""
    print(f"menace: cannot grade here: {message}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(3)


class NotebookChecks:
    """menace's report on the notebook's code, read test by test by the test cells."""

    def __init__(self, report: Any, outputs: dict[str, str], grading: bool) -> None:
        """Keep the report and each test's feedback text (what a failed cell shows)."""
        self.report = report
        self.outputs = outputs
        self.grading = grading

    def test(self, name: str) -> None:
        """Pass when menace's test ``name`` passed; else fail with what menace says about it.

        A hidden test's failure says its title and hint, never its inputs or expected value.
        """
        results = {t.name: t for t in self.report.tests}
        result = results.get(name)
        if result is None:
            if self.grading:
                raise KernelNotReady(f"menace has no test {name!r} for {self.report.challenge}")
            print(f"– a hidden check: it runs when your work is graded ({name.replace('_', ' ')})")
            return
        if result.outcome.value == "passed":
            print(self.outputs[name], end="")
            return
        raise AssertionError("\n" + self.outputs[name]) from None


def check_notebook(slug: str) -> NotebookChecks:
    """Check the code of the cells run so far against the challenge ``slug`` (the checks cell).

    Raises:
        KernelNotReady: outside grading, when menace cannot check here (it says why).
    """
    place = where_we_are()
    try:
        return _check(slug, executed_cells(), place)
    except KernelNotReady as problem:
        if place.grading:
            _stop_kernel(str(problem))
        raise


def _check(slug: str, cells: list[str], place: Place) -> NotebookChecks:
    try:
        from menace_course.checking.pipeline import check_submission
        from menace_course.checking.suite import load_suite
        from menace_course.course import Course, find_course
        from menace_course.errors import MenaceError
        from menace_course.exports.gradescope_results import output_of_test
        from menace_course.feedback import environment
        from menace_course.sandbox.launch import choose_kind
    except ImportError as error:  # hypothesis, jinja2, ...: the package's own dependencies
        raise KernelNotReady(
            f"{error}: install menace-course with its dependencies in this kernel's Python "
            f"({sys.executable} -m pip install menace-course)"
        ) from None
    try:
        course = Course(place.course) if place.course else find_course()
        suite = load_suite(course, slug)
        if place.grading and not course.has_hidden_tests:
            raise KernelNotReady(
                f"the course at {course.root} has no hidden tests: set MENACE_COURSE (or the "
                f"course in {MARKER_FILE}) to the instructor's course folder"
            )
        report = check_submission(("notebook.ipynb", notebook_bytes(cells)), suite, choose_kind("auto"))
    except MenaceError as error:
        raise KernelNotReady(str(error)) from None
    if report.status.value == "grader_error":
        raise KernelNotReady("the grader failed: " + " ".join(report.grader_log)[-2000:])
    env = environment(course.templates_dir, "text")
    outputs = {t.name: output_of_test(t, report.function, env) for t in report.tests}
    return NotebookChecks(report, outputs, place.grading)
