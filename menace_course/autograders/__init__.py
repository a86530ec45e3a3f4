"""Code that runs inside an LMS's autograder, on the grading machine, not in ``menace``'s CLI.

* :mod:`~menace_course.autograders.gradescope`: what ``run_autograder`` runs in the
  Gradescope container (``python -m menace_course.autograders.gradescope``): grade one
  submission into ``results.json``;
* :mod:`~menace_course.autograders.nbgrader`: what an exported notebook's test cells use in
  nbgrader's kernel.

The exports that build these autograders (the zip, the notebook) are in
:mod:`menace_course.exports`; they never run student code themselves.
"""
