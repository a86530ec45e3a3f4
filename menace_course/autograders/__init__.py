"""Code that runs inside an LMS's autograder, on the grading machine, not in ``menace``'s CLI.

* :mod:`~menace_course.autograders.gradescope`: what ``run_autograder`` runs in the
  Gradescope container (``python -m menace_course.autograders.gradescope``): grade one
  submission into ``results.json``;
* :mod:`~menace_course.autograders.nbgrader_autograde`: menace's step in ``nbgrader
  autograde``, in the place of nbgrader's ``Execute``: it grades the notebook file in the
  sandbox and writes each test's result into its cell (no kernel runs the student's cells);
* :mod:`~menace_course.autograders.nbgrader`: what that step and an exported notebook's
  cells share, and what the cells call in a student's own kernel (feedback, never a grade).

The exports that build these autograders (the zip, the notebook) are in
:mod:`menace_course.exports`; they never run student code themselves.
"""
