"""Oracle-free tests: the calls a test makes never depend on whether an answer was right.

A submission runs in one sandboxed child for the whole check and sees every call the
tests make into it. A test that calls again only after a wrong answer (a retry, a second
look to choose a hint) tells the file that its answer was wrong: a file can notice the
repeat and switch its guess for the tests still to come. So every test must make the
same calls, with the same arguments, whatever the answers were.

``menace validate`` checks it by running the tests against answers that differ (the
reference, the starter, the known wrong solutions) and comparing, test by test, the
calls each made: the function and the arguments as sent. A test may stop early at its
first failing check (what was called until then is the reference's calls, in order); it
may not make a call that, at that point, the reference's run did not make.

Example:
    trace = trace_calls(reference_path, suite, "bwrap")
    trace[0]  # ('example_1', (("after_game([4, 4, 4, ...], 4, 'win')"),))
    branching(trace, trace_calls(wrong_path, suite, "bwrap"))  # [] when oracle-free
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from menace_course.checking.pipeline import Target, open_submission
from menace_course.checking.proxy import SubmissionProxy
from menace_course.checking.runner import run_case
from menace_course.checking.suite import Case, Suite, call_text
from menace_course.models import SandboxKind

#: Each test's name and the calls it made, in order (each as the call a student would type).
Trace = tuple[tuple[str, tuple[str, ...]], ...]


Seen = TypeVar("Seen")


def each_test(
    submission: Path | tuple[str, bytes],
    suite: Suite,
    kind: SandboxKind,
    watch: Callable[[Case, SubmissionProxy], Seen],
) -> list[Seen] | None:
    """Run every test of ``suite`` on ``submission``, in order, each through ``watch``.

    ``watch(case, proxy)`` runs the case (``run_case(case, proxy)``) and says what it saw.
    None when the file does not load or does not define the function (no test runs).
    """
    with open_submission(submission, Target.of(suite.challenge), kind) as opened:
        proxy = opened.proxy
        if proxy is None:
            return None
        return [watch(case, proxy) for case in suite.cases]


def trace_calls(submission: Path | tuple[str, bytes], suite: Suite, kind: SandboxKind) -> Trace | None:
    """Run every test of ``suite`` on ``submission`` and give the calls each test made.

    None when the file does not load or does not define the function (no test runs, so
    there is nothing to compare).
    """

    def calls_made(case: Case, proxy: SubmissionProxy) -> tuple[str, tuple[str, ...]]:
        before = len(proxy.calls)
        run_case(case, proxy)
        return case.name, tuple(call_text(c.function, c.args) for c in proxy.calls[before:])

    found = each_test(submission, suite, kind, calls_made)
    return None if found is None else tuple(found)


@dataclass(frozen=True)
class Branch:
    """A test that made, for another answer, a call the reference's run did not make there."""

    test: str
    position: int  #: which of the test's calls (from 1) differs
    reference_call: str | None  #: what the reference's run called there (None: it had stopped)
    other_call: str


def branching(reference: Trace, other: Trace) -> list[Branch]:
    """The tests whose calls for ``other`` are not the reference's calls (or the first of them)."""
    theirs = dict(other)
    found = []
    for name, calls in reference:
        made = theirs.get(name)
        if made is None:
            continue
        for position, call in enumerate(made, start=1):
            expected = calls[position - 1] if position <= len(calls) else None
            if call != expected:
                found.append(Branch(name, position, expected, call))
                break
    return found


def describe(branch: Branch, label: str, limit: int = 80) -> str:
    """One line for a problem: which test, which call, for which file."""
    there = (
        "made no more calls"
        if branch.reference_call is None
        else f"called {_cut(branch.reference_call, limit)}"
    )
    return (
        f"test {branch.test} branches on the answer: for {label} its call {branch.position} is "
        f"{_cut(branch.other_call, limit)}, where for the reference it {there}. A test must make the "
        "same calls whatever the answers (no retry, no second look after a wrong answer): a file "
        "that notices the difference learns that its answer was wrong"
    )


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
