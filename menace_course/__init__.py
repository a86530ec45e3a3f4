"""menace-course: auto-graded exercises for "Can Matchboxes Learn to Play?".

The package has three layers, and data flows one way through them:

* the lesson: :mod:`menace_course.lesson.noughts` (the game), :mod:`menace_course.lesson.engine`
  (MENACE itself) and :mod:`menace_course.lesson.pixels` (the lesson's pictures);
* the grader: a student's file is read (:mod:`~menace_course.checking.loader`), run in a sandboxed
  child (:mod:`~menace_course.sandbox`), and tested by trusted tests in this process
  (:mod:`~menace_course.checking.pipeline`), giving a :class:`~menace_course.models.SubmissionReport`;
* the outputs: feedback, JSON, class reports and LMS exports read that report and never
  call back.

Authors of challenges write tests with the names below (from :mod:`menace_course.checking.testing`).
They are imported on first use, so ``import menace_course`` stays cheap.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (not typing's: ``import menace_course`` is the first thing ``menace`` does)
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "Outcome": "menace_course.models",
    "SubmissionReport": "menace_course.models",
    "expect": "menace_course.checking.testing",
    "expect_equal": "menace_course.checking.testing",
    "expect_unchanged": "menace_course.checking.testing",
    "hint": "menace_course.checking.testing",
    "points": "menace_course.checking.testing",
    "reference": "menace_course.checking.testing",
    "reference_module": "menace_course.checking.testing",
    "visible": "menace_course.checking.testing",
}

__all__ = [
    "Outcome",
    "SubmissionReport",
    "__version__",
    "expect",
    "expect_equal",
    "expect_unchanged",
    "hint",
    "points",
    "reference",
    "reference_module",
    "visible",
]


def __getattr__(name: str) -> Any:
    """Import a public name from its module the first time it is used."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'menace_course' has no attribute {name!r}")
