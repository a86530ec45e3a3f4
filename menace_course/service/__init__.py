"""The check service (``menace serve``): the course's hidden tests, behind a web page and a JSON API.

It is the same pipeline as ``menace check`` behind HTTP, not a second grader::

    browser / menace check --server / LMS
       -> app (pages.py, api.py, auth.py)      stores the attempt first (db/)
       -> dispatch/ (Dispatcher: local pool of warm grader processes, or a task queue)
       -> dispatch/grading.py: the one submission path, in the sandbox
       -> db/attempts.py records the report once, keyed by the attempt's id

Importing this package imports nothing heavy: :mod:`menace_course.service.client` (what
``menace check --server`` uses) needs only the standard library, so a student's kit can
use it without Flask installed.
"""
