"""Run a suite's cases against a submission and turn what happened into :class:`TestResult` s.

A case passes when it returns. A :class:`~menace_course.checking.testing.StudentFailure` (or a plain
``assert``) is the student's mistake and becomes ``failed``; a call that raised or stopped
Python is ``error``; one that took too long is ``timeout``; a function that already timed
out is not called again, so the rest of its tests are ``skipped``. For a hidden test the
record keeps the kind of problem and what the child said about it (for the instructor),
never its inputs or expected values; what a student sees of it is made by
:func:`~menace_course.student_view.student_view`. A test's ``message`` is the grader's own
(:func:`~menace_course.student_view.message_for`), with a builtin exception kind decided
here from a fixed list (:class:`~menace_course.models.ErrorKind`), never the child's name.

A test's own code that fails on an answer the student's function gave back (``sorted()`` of
mixed keys, ``.get`` on a list: a ``TypeError``, ``AttributeError``, ``KeyError``... raised in the
test module or the reference it calls, after answers that differ from the reference's) is the
student's failure, ``wrong_type`` (:class:`~menace_course.checking.testing.UnusableAnswer`, raised
by :mod:`~menace_course.checking.answers`). Any other exception raised while a test runs (in
the grader's own code, a value the grader cannot send, a test that fails on the reference's own
answers, hypothesis finding the test itself unsatisfiable) is the grader's fault, not the
student's: the test's outcome is ``grader_error``, the student is told so, and the traceback
goes to :attr:`Ran.grader_log` for
the instructor only.
"""

from __future__ import annotations

import os
import reprlib
import sys
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from menace_course import wording
from menace_course.checking.compare import first_difference
from menace_course.checking.problems import cap_words
from menace_course.checking.proxy import CallRecord, SubmissionProxy
from menace_course.checking.suite import Case, call_text
from menace_course.checking.testing import CallProblem, ChangedInput, Mismatch, StudentFailure, UnusableAnswer
from menace_course.models import Detail, ErrorKind, Outcome, Problem, TestKind, TestResult
from menace_course.sandbox.batch import PlannedCall
from menace_course.sandbox.outcomes import CallOutcome, refused_for_size
from menace_course.student_view import MESSAGES, MESSAGES_PASSED, message_for

__all__ = ["MESSAGES", "SKIP_SWITCH", "Ran", "may_skip", "run_case", "run_case_logged", "run_cases", "show"]

_repr = reprlib.Repr()
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxdict = 12
_repr.maxstring = _repr.maxother = 120
_repr.maxlevel = 4

#: The environment variable that, set to ``off``, makes every test's code run (:func:`may_skip`).
SKIP_SWITCH = "MENACE_SKIP_KNOWN"
#: Problems about the value returned, where a test's own hint helps.
VALUE_PROBLEMS = frozenset(
    {Problem.DIFFERENT, Problem.WRONG_TYPE, Problem.CHANGED_INPUT, Problem.BROKEN_RULE, Problem.FLAKY}
)
#: Problems of a call that raised: a hidden test's own hint says what it checks (issue 24),
#: since its input is not shown.
CRASH_PROBLEMS = frozenset({Problem.RAISED, Problem.RECURSION})


def show(value: Any) -> str:
    """A capped ``repr`` for feedback: long lists are cut in the middle, not silently."""
    text = _repr.repr(value)
    return text if len(text) <= 400 else text[:200] + " … " + text[-150:]


def _outcome_for(problem: Problem) -> Outcome:
    if problem is Problem.TIMEOUT:
        return Outcome.TIMEOUT
    if problem in (Problem.BUDGET, Problem.DEAD):
        return Outcome.SKIPPED
    if problem in (
        Problem.RAISED,
        Problem.CRASHED,
        Problem.TOO_LARGE,
        Problem.MEMORY,
        Problem.RECURSION,
        Problem.MISSING,
        Problem.SIGNATURE,
    ):
        return Outcome.ERROR
    return Outcome.FAILED


def _call_detail(problem: Problem, record: CallRecord | None) -> dict[str, Any]:
    """What the last call shows: the call, what it printed, the error and its frames."""
    if record is None:
        return {"problem": problem}
    outcome: CallOutcome | None = record.outcome
    values: dict[str, Any] = {"problem": problem, "call": call_text(record.function, record.args)}
    if outcome is not None:
        if outcome.printed.text:
            suffix = f"\n… ({outcome.printed.dropped} more characters)" if outcome.printed.dropped else ""
            values["printed"] = outcome.printed.text + suffix
        if (
            problem is Problem.TOO_LARGE and outcome.exception is not None
        ):  # the worker stopped it, not Python
            values["note"] = wording.TOO_LARGE_NOTE % {"cap": cap_words(outcome.exception.message)}
            return values
        if outcome.exception is not None:
            values["error_type"] = outcome.exception.type_name
            values["error_message"] = outcome.exception.message
            values["traceback"] = outcome.exception.frames
        if outcome.exit_code is not None:
            values["note"] = wording.EXIT_CODE % {"code": outcome.exit_code}
    return values


def _problem_of(error: BaseException) -> Problem:
    if isinstance(error, CallProblem):
        exception = getattr(error.outcome, "exception", None)
        if error.status == "raised" and exception is not None:
            kind = ErrorKind.of(exception.type_name)  # a name among the fixed builtins, or None
            if kind is ErrorKind.MEMORY:
                return Problem.MEMORY
            if kind is ErrorKind.RECURSION:
                return Problem.RECURSION
        if isinstance(error.outcome, CallOutcome) and refused_for_size(error.outcome):
            return Problem.TOO_LARGE  # the worker refused the reply: Python did not stop
        return Problem(error.status)
    if isinstance(error, StudentFailure):
        return Problem(error.problem)
    if isinstance(error, AssertionError):
        return Problem.DIFFERENT
    return Problem.FLAKY  # the only other error a student causes (see _is_students)


def _error_kind(record: CallRecord | None) -> ErrorKind | None:
    """The builtin kind of what the last call raised: from a fixed list, never the child's name."""
    outcome = record.outcome if record is not None else None
    if outcome is None or outcome.exception is None or refused_for_size(outcome):
        return None
    return ErrorKind.of(outcome.exception.type_name)


def _detail(case: Case, error: BaseException, problem: Problem, record: CallRecord | None) -> Detail:
    if not case.is_visible:
        # The instructor's record: what the child said, never the call's inputs or the expected
        # value. A student sees only what student_view keeps of it (the problem, a builtin kind).
        values: dict[str, Any] = {"problem": problem}
        if problem is Problem.TOO_LARGE:
            return Detail(**values)
        outcome = record.outcome if record is not None else None
        if outcome is not None and outcome.exception:
            values["error_type"] = outcome.exception.type_name
            values["error_message"] = outcome.exception.message
            values["traceback"] = outcome.exception.frames
        if outcome is not None and outcome.printed.text:
            values["printed"] = outcome.printed.text
        if isinstance(error, UnusableAnswer):
            values["note"] = (
                f"the test could not use the answer: {type(error.error).__name__}: {error.error}"[:300]
            )
        return Detail(**values)
    values = _call_detail(problem, record)
    if isinstance(error, Mismatch):
        values["expected"] = show(error.expected)
        values["got"] = show(error.got)
        values["got_type"] = getattr(error.got, "type_name", None) or type(error.got).__name__
        values["first_difference"] = first_difference(error.got, error.expected)
    elif isinstance(error, ChangedInput):
        values["expected"] = show(error.before)
        values["argument_after"] = show(error.after)
        values["note"] = wording.ARGUMENT_CHANGED % {"n": error.position + 1}
        values["got_type"] = type(error.before).__name__  # the grader's own copy: list, dict...
    elif isinstance(error, UnusableAnswer):
        values["note"] = wording.COULD_NOT_USE % {
            "error": f"{type(error.error).__name__}: {str(error.error)[:200]}"
        }
    elif problem in (Problem.BROKEN_RULE, Problem.DIFFERENT, Problem.FLAKY):
        values["note"] = str(error)[:300] or None
    return Detail(**values)


@dataclass(frozen=True)
class Ran:
    """The tests' results, and the grader's tracebacks when a test itself failed (instructor only)."""

    results: tuple[TestResult, ...]
    grader_log: tuple[str, ...] = ()


def _is_students(error: BaseException) -> bool:
    """True for what a student's code can cause: a failed check, a call that went wrong, flakiness."""
    if isinstance(error, AssertionError):  # StudentFailure and CallProblem are AssertionErrors
        return True
    # Only a property test raises hypothesis' errors, and it imported hypothesis to be one.
    errors = sys.modules.get("hypothesis.errors")
    flaky = "Flaky" in type(error).__name__
    return errors is not None and isinstance(error, errors.HypothesisException) and flaky


def may_skip(case: Case, plan: tuple[PlannedCall, ...]) -> bool:
    """True when ``case`` may pass without running, if every reply of ``plan`` is the reference's.

    Only for a case whose module says its tests share no state
    (:data:`~menace_course.checking.testing.SHARES_NO_STATE`, proven by ``menace
    validate``), whose plan knows every reply, and not with ``MENACE_SKIP_KNOWN=off`` in
    the environment (to compare, or to rule it out when something looks wrong).
    """
    return (
        case.shares_no_state
        and all(call.answers_known for call in plan)
        and os.environ.get(SKIP_SWITCH) != "off"
    )


def run_case(case: Case, proxy: SubmissionProxy) -> TestResult:
    """Run one case and describe its outcome (see :func:`run_case_logged` for the grader's log)."""
    return run_case_logged(case, proxy)[0]


def run_case_logged(
    case: Case, proxy: SubmissionProxy, plan: tuple[PlannedCall, ...] = ()
) -> tuple[TestResult, str | None]:
    """Run one case; give its result and, when the grader failed, the traceback.

    ``plan``: the calls the case will make (:mod:`~menace_course.checking.plan`), sent to
    the child in one batch before it runs. When its module says its tests share no state
    and every reply is, byte for byte, the one the reference gets, the case passes without
    its code running (:func:`may_skip`): it would pass, as it did when its plan was learnt.
    """
    token = proxy.activate()
    started = time.monotonic()
    error: BaseException | None = None
    log = None
    try:
        if plan and proxy.send_ahead(plan) == len(plan) and may_skip(case, plan) and proxy.read_known(plan):
            pass  # every reply was the reference's: the test's code would only pass again
        else:
            case.run(proxy)
    except Exception as raised:  # the test's failure is data; nothing may escape the runner
        error = raised
        if not _is_students(raised):
            log = f"test {case.name}:\n" + traceback.format_exc()
    finally:
        proxy.deactivate(token)
    seconds = time.monotonic() - started
    common: dict[str, Any] = {
        "name": case.name,
        "title": case.title,
        "kind": case.kind,
        "max_points": case.points,
        "is_visible": case.is_visible,
        "seconds": round(seconds, 4),
    }
    if error is None:
        passed = TestResult(
            outcome=Outcome.PASSED, message=MESSAGES_PASSED, points=case.points, hint=None, **common
        )
        return passed, None
    if log is not None:
        detail = Detail(problem=Problem.GRADER)
        broken = TestResult(
            outcome=Outcome.GRADER_ERROR, message=MESSAGES["grader"], points=0.0, detail=detail, **common
        )
        return broken, log
    problem = _problem_of(error)
    record = proxy.last_call
    if problem is Problem.DEAD and proxy.first_problem is not None:
        # Hypothesis retried after a timeout or crash: report the call that caused it.
        error, record = proxy.first_problem
        problem = _problem_of(error)
    hint = getattr(error, "hint", None)
    if (
        hint is None
        and not getattr(error, "own_advice", False)
        and problem in VALUE_PROBLEMS
        and not (case.kind is TestKind.EXAMPLE and problem is Problem.CHANGED_INPUT)
    ):
        # A test's hint speaks of values; a crash or a timeout has its own advice.
        hint = case.hint
    if hint is None and problem in CRASH_PROBLEMS and case.kind is not TestKind.EXAMPLE:
        hint = case.hint  # its input is not shown: the hint says what the check is about
    result = TestResult(
        outcome=_outcome_for(problem),
        message=message_for(problem, _error_kind(record)),
        points=0.0,
        hint=hint if problem not in (Problem.BUDGET, Problem.DEAD) else None,
        detail=_detail(case, error, problem, record),
        **common,
    )
    return result, None


def run_cases(
    cases: tuple[Case, ...],
    proxy: SubmissionProxy,
    plans: Mapping[str, tuple[PlannedCall, ...]] | None = None,
) -> Ran:
    """Run every case in order; ``plans``: the calls of those cases whose calls are known ahead.

    A case's calls go in one batch only while every case before it passed: a submission
    that failed once will likely fail again, and each batch a failing test leaves costs
    the child a fresh start (:meth:`~menace_course.sandbox.child.Child.send_ahead`), so a
    wrong submission pays for one at most.
    """
    plans = plans or {}
    ran = []
    passing = True
    for case in cases:
        result, log = run_case_logged(case, proxy, plans.get(case.name, ()) if passing else ())
        passing = passing and result.outcome is Outcome.PASSED
        ran.append((result, log))
    return Ran(tuple(r for r, _ in ran), tuple(log for _, log in ran if log))
