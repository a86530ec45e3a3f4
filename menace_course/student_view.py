"""What a student may see of a report: :func:`student_view` makes it, and nothing else does.

A :class:`~menace_course.models.SubmissionReport` is the instructor's record: it keeps what
the sandboxed child said about every test, hidden ones included (the exception's name and
message, the student's frames, what was printed, how long each test took), so that an
instructor can see what happened (``results.jsonl``, the class report, the service's
database and ``menace serve export``). Everything a student reads is made from
``student_view(report)`` instead: ``menace check`` in every format (and ``--server``), the
service's JSON API and pages, the feedback files of ``menace grade`` (and Moodle's comments
made from them), Gradescope's ``results.json`` and the nbgrader notebook's cells.

The rule (issue 19; ``docs/json-schema.md`` says it field by field): the child runs the
student's code, and the student's code can choose every string, number and delay the child
sends. So of a hidden test, a student sees only the grader's own vocabulary:

* its ``name``, ``title``, ``kind``, ``hint``, ``outcome``, ``points`` and ``max_points``;
* a ``message`` made here from the problem code (:func:`menace_course.wording.message`);
* a ``detail`` that holds the problem code and, at most, an exception kind among the
  fixed builtin names of :class:`~menace_course.models.ErrorKind` (any other name: none);
* ``seconds`` 0.

A visible test that runs after a hidden test has called the student's function keeps only
what the grader made (the call and the expected value): the child may have kept a hidden
input and could send it back as its answer, its output or its error. The check's total
``seconds`` is rounded to :data:`SECONDS_STEP` (the parent bounds it by the challenge's
limits, :func:`~menace_course.checking.pipeline.time_allowed`), and a sign of tampering seen
in the sandbox is named in the grader's words only (:func:`_shown_finding`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from menace_course import wording
from menace_course.models import (
    Detail,
    ErrorKind,
    Finding,
    Outcome,
    Problem,
    SubmissionReport,
    TestResult,
)

#: One plain line for each problem a test can have: a test's ``message`` (from :mod:`.wording`).
MESSAGES: dict[str, str] = wording.MESSAGES

#: A passed test's message.
MESSAGES_PASSED = wording.PASSED

#: The total time a student sees is a multiple of this many seconds.
SECONDS_STEP = 0.1

#: The sentence for a sign of tampering seen in the sandbox that is not one of the grader's own.
TRIED_SOMETHING = "tried something the sandbox does not allow while it ran"


def message_for(problem: Problem | str, kind: ErrorKind | None = None) -> str:
    """A test's ``message`` for ``problem``; a ``raised`` one names the builtin ``kind`` when there is one.

    >>> message_for(Problem.RAISED, ErrorKind.INDEX), message_for("raised"), message_for("timeout")
    ('raised IndexError', 'raised an exception', 'did not finish in time')
    """
    return wording.message(problem, kind)


def shown_seconds(seconds: float) -> float:
    """``seconds`` as a student sees it: rounded to :data:`SECONDS_STEP`, never negative.

    >>> shown_seconds(1.2345), shown_seconds(0.04), shown_seconds(-3.0)
    (1.2, 0.0, 0.0)
    """
    if not seconds > 0:  # NaN too
        return 0.0
    return round(round(seconds / SECONDS_STEP) * SECONDS_STEP, 1)


def _kind_of(detail: Detail | None) -> ErrorKind | None:
    """The builtin kind a student may read: only for a call that raised (``memory`` and ``recursion``
    say theirs in words), and only one of :class:`ErrorKind`'s exact names."""
    if detail is None or detail.problem is not Problem.RAISED:
        return None
    return ErrorKind.of(detail.error_type)


def _hidden_test(test: TestResult) -> TestResult:
    """A hidden test in the grader's vocabulary only (see the module's docstring)."""
    detail = test.detail
    kind = _kind_of(detail)
    if test.outcome is Outcome.PASSED:
        message = MESSAGES_PASSED
    elif detail is None:
        # Skipped before anything ran (the file did not load...): the grader's own sentence,
        # made from the file's problem, never from a call. Anything else: a plain line.
        message = (
            test.message if test.outcome is Outcome.SKIPPED else wording.subjectless(wording.DID_NOT_PASS)
        )
    else:
        message = message_for(detail.problem, kind)
    name = kind.value if kind is not None else None
    shown = None if detail is None else Detail(problem=detail.problem, error_type=name)
    return TestResult(
        name=test.name,
        title=test.title,
        kind=test.kind,
        outcome=test.outcome,
        message=message,
        points=test.points,
        max_points=test.max_points,
        hint=test.hint,
        is_visible=False,
        detail=shown,
        seconds=0.0,
    )


def _visible_after_hidden(test: TestResult) -> TestResult:
    """A visible test run after hidden calls: the grader's call and expected value, nothing of the child's."""
    detail = test.detail
    kind = _kind_of(detail)
    shown = None
    if detail is not None:
        shown = Detail(
            problem=detail.problem,
            call=detail.call,
            expected=detail.expected,
            error_type=kind.value if kind else None,
        )
    message = test.message if detail is None else message_for(detail.problem, kind)
    return dataclasses.replace(test, message=message, detail=shown, seconds=0.0)


def _shown_finding(finding: Finding) -> Finding:
    """A sign of tampering as a student reads it.

    What the file's text shows (``code``) is the grader's own reading of the student's file.
    What the sandbox saw (``sandbox``) is named by the grader's fixed sentences only: the
    child reports the event and its detail, and student code can make the detail anything
    (``sys.audit("menace.refused", repr(args))``), so only the grader's own sentences are kept.
    """
    if finding.source != "sandbox":
        return finding
    return Finding("sandbox", finding.what if finding.what in _sandbox_sentences() else TRIED_SOMETHING)


def _sandbox_sentences() -> frozenset[str]:
    """The sentences the grader itself words a sandbox finding with (``scan.RUNTIME``)."""
    from menace_course.sandbox.scan import RUNTIME

    return frozenset(RUNTIME.values())


def _integrity(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """The file's own findings as found; the sandbox's as a set of the grader's sentences, in a fixed
    order (so that which ones, not in what order or how often, is all a submission can choose)."""
    code = [f for f in findings if f.source != "sandbox"]
    sandbox = sorted({_shown_finding(f) for f in findings if f.source == "sandbox"}, key=lambda f: f.what)
    return (*code, *sandbox)


def student_view(report: SubmissionReport) -> SubmissionReport:
    """The report as a student may see it: the only way anything reaches a student.

    Idempotent: the view of a view is the view. The instructor's record (``report``)
    is not changed.
    """
    tests: list[TestResult] = []
    hidden_called = False
    for test in report.tests:
        if not test.is_visible:
            tests.append(_hidden_test(test))
            hidden_called = hidden_called or test.outcome is not Outcome.SKIPPED or test.detail is not None
        elif hidden_called:
            tests.append(_visible_after_hidden(test))
        else:
            tests.append(dataclasses.replace(test, seconds=0.0))
    return dataclasses.replace(
        report,
        tests=tuple(tests),
        seconds=shown_seconds(report.seconds),
        integrity=_integrity(report.integrity),
        grader_log=(),
    )


def student_test(test: TestResult) -> TestResult:
    """One test as a student may see it, on its own: a hidden test in the grader's vocabulary only.

    Where the tests' order is known, use :func:`student_view`, which also keeps a visible test
    run after hidden calls to the grader's own values.
    """
    return _hidden_test(test) if not test.is_visible else dataclasses.replace(test, seconds=0.0)


def student_dict(report: SubmissionReport) -> dict[str, Any]:
    """:func:`student_view` as JSON-ready data: what ``--format json``, the API and ``--server`` give."""
    return student_view(report).to_dict()
