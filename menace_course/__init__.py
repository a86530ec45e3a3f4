"""menace-course: auto-graded exercises for "Can Matchboxes Learn to Play?".

The package has three layers, and data flows one way through them:

* the lesson: :mod:`menace_course.noughts` (the game), :mod:`menace_course.engine`
  (MENACE itself) and :mod:`menace_course.pixels` (the lesson's pictures);
* the grader: a student's file is loaded, run in a sandboxed child process, and tested
  by trusted tests in this process (:mod:`menace_course.pipeline`), giving a
  :class:`~menace_course.models.SubmissionReport`;
* the outputs: feedback, JSON, class reports and LMS exports read that report and
  never call back.

Authors of challenges use :mod:`menace_course.testing`.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
