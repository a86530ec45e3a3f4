"""``menace grade``: a whole class's submissions through the same pipeline as ``menace check``.

The modules, in the order the data flows through them::

    SUBMISSIONS ──discover──▶ Entry per student ──plan──▶ which need grading
        ──batch (worker processes, one sandbox per submission)──▶ record per student
        ──store (OUT/.results/<key>.json, written atomically)──▶
        ──assemble──▶ results.jsonl · grades.csv (table) · feedback/ · report.html (report, plots)

A *record* is the ``check --format json`` report of one submission with a ``grading``
block added (who the student is, what file was graded, the verdict and why; see
:mod:`~menace_course.grading.record`). Records are plain dicts: they are what crosses
between processes and what is kept on disk, so a batch that was killed can be finished
by running the same command again.
"""
