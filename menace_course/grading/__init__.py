"""``menace grade``: a whole class's submissions through the same pipeline as ``menace check``.

The modules, in the order the data flows through them::

    SUBMISSIONS ──discover──▶ Entry per student ──plan──▶ which need grading
        ──batch (the pool's grader processes, one sandbox per submission)──▶ Record per student
        ──store (OUT/.results/<key>.json, written atomically)──▶
        ──assemble──▶ results.jsonl · grades.csv (table) · feedback/ · report.html (report, plots)

A *record* is the ``check --format json`` report of one submission with a ``grading``
block added (who the student is, what file was graded, the verdict and why; see
:mod:`~menace_course.grading.record`). Between the modules records, entries and tasks are
frozen dataclasses; a record becomes JSON only at the store (and in ``results.jsonl``),
which keeps every record on disk, so a batch that was killed can be finished by running
the same command again.
"""
