"""Checking one submission against one challenge: the grader's core.

The modules, in the order a submission flows through them:

* :mod:`~menace_course.checking.loader`: read the student's file (``.py`` or ``.ipynb``)
  into source text, without running it;
* :mod:`~menace_course.checking.suite`: collect the challenge's visible examples and
  hidden tests (with :mod:`~menace_course.checking.replay` replaying generated examples);
* :mod:`~menace_course.checking.proxy`: the ``submission`` a test calls, which forwards
  each call to the sandboxed child;
* :mod:`~menace_course.checking.runner`: run each test and describe what happened;
* :mod:`~menace_course.checking.pipeline`: the steps above, in order, giving a
  :class:`~menace_course.models.SubmissionReport`.

:mod:`~menace_course.checking.testing` is what challenge authors write tests with, and
:mod:`~menace_course.checking.compare` is the type-strict equality they rely on.
"""

import os

# Hypothesis runs every installed package's "hypothesis" entry point when it is imported
# (trio registers one, which pulls in trio and pytest: about half of a check's start-up).
# The grader needs none of them, and an entry point may register strategies that change
# the examples a derandomized test generates (the example cache is keyed on the suite and
# hypothesis' version, not on what else is installed). So the grader loads none, unless
# whoever runs it said otherwise.
os.environ.setdefault("HYPOTHESIS_NO_PLUGINS", "1")
