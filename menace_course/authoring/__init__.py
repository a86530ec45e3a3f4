"""Authoring: make a new challenge (``menace new``) and prove its tests are good (``menace validate``).

* :mod:`~menace_course.authoring.scaffold`: a new challenge that validates from the start;
* :mod:`~menace_course.authoring.mutants`: small wrong versions of a reference, made with ``ast``;
* :mod:`~menace_course.authoring.killing`: mutants run as submissions, in parallel;
* :mod:`~menace_course.authoring.checks`: reference, starter, examples, hints, wrong solutions;
* :mod:`~menace_course.authoring.validate`: all checks of a challenge, put together;
* :mod:`~menace_course.authoring.results` and :mod:`~menace_course.authoring.report`: the
  findings as data (JSON) and in words.

``docs/authoring.md`` walks an author through them.
"""
