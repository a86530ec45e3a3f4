"""The failures a test and the ``submission`` proxy share: a leaf, importing only
the vocabulary (:mod:`menace_course.models`).

A student's mistake found inside a test is raised as a :class:`StudentFailure` (the
author's checks in :mod:`~menace_course.checking.testing` raise its subclasses), and a call
that went wrong in the sandbox as a :class:`CallProblem` (raised by
:mod:`~menace_course.checking.proxy`). The runner turns both into data. They live here, on
their own, so that the proxy need not import the author's API nor the author's API the
proxy: ``tests/core/test_architecture.py`` keeps it so.
"""

from __future__ import annotations

from typing import Any

from menace_course.models import Problem


class StudentFailure(AssertionError):
    """A check found a mistake in the student's code. Raise a subclass from a test.

    ``hint`` names a template in ``feedback_templates/hints/``; the test's own ``@hint``
    is used when it is None.
    """

    problem = Problem.DIFFERENT

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        """Keep a plain message and an optional hint id."""
        super().__init__(message)
        self.hint = hint


class CallProblem(StudentFailure):
    """The call itself went wrong in the sandbox: raised, took too long, stopped Python.

    Raised by the ``submission`` fixture, not by authors. ``status`` is the worker's
    status (``raised``, ``timeout``, ``crashed``, ``missing``, ``budget``, ``dead``).
    """

    def __init__(self, status: str, outcome: Any, function: str) -> None:
        """Keep the raw call outcome for the report."""
        super().__init__(f"{function}: {status}")
        self.status = status
        self.outcome = outcome
        self.function = function
        self.problem = Problem(status)  # every worker status a call can fail with is a Problem
