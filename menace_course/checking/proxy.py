"""The ``submission`` a test receives: calls on it go to the sandboxed child.

``submission.after_game(beads, 4, "win")`` sends a copy of the arguments to the child,
waits for its answer within the limits, and gives back the plain value the student's
function returned. When the call raises, takes too long or stops Python, a
:class:`~menace_course.checking.failures.CallProblem` is raised instead, which the runner turns
into the test's outcome. Every call is remembered (:attr:`SubmissionProxy.last_call`) so
a failure can show the exact call a student can paste, and so that the last one can be
made again on the same objects (:meth:`SubmissionProxy.call_again`).
"""

from __future__ import annotations

import contextvars
import marshal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from menace_course.checking.compare import clone
from menace_course.checking.failures import CallProblem
from menace_course.checking.lookahead import repeat_follows
from menace_course.sandbox.batch import PlannedCall
from menace_course.sandbox.outcomes import CallOutcome, FunctionInfo

_current: contextvars.ContextVar[SubmissionProxy] = contextvars.ContextVar("menace_submission")


@dataclass
class CallRecord:
    """One call made by a test: the function, the arguments as sent, and what came back."""

    function: str
    args: tuple[Any, ...]
    outcome: CallOutcome | None = None


class Worker(Protocol):
    """What answers a proxy's calls: a sandboxed :class:`~menace_course.sandbox.child.Child`,
    or, to learn a test's calls, the reference in the grader (:mod:`~menace_course.checking.plan`)."""

    def call(self, function: str, args: list[Any], then_again: bool = False) -> CallOutcome:
        """Call ``function(*args)``."""

    def call_again(self) -> CallOutcome:
        """Call the last call's function again on the objects it left."""

    def send_ahead(self, calls: Sequence[PlannedCall]) -> int:
        """Send calls the test will make before it makes them; how many went."""

    def read_known(self) -> tuple[CallOutcome, ...] | None:
        """Read the replies to the calls sent ahead; their outcomes when all were the known ones."""


class SignatureProblem(CallProblem):
    """The student's function cannot take the arguments the challenge passes."""


class SubmissionProxy:
    """Stands for the student's module in a test; attribute access gives a callable."""

    def __init__(self, worker: Worker, functions: Mapping[str, FunctionInfo]) -> None:
        """Wrap a loaded worker; ``functions`` is what the child reported it defines."""
        self._worker = worker
        self._functions = functions
        self.calls: list[CallRecord] = []
        self.last_call: CallRecord | None = None
        #: the first call of the running test that raised, timed out or crashed
        self.first_problem: tuple[CallProblem, CallRecord] | None = None

    def __getattr__(self, name: str) -> Any:
        """``submission.after_game`` is a function that calls the student's ``after_game``."""
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args: Any) -> Any:
            return self._call(name, args)

        call.__name__ = name
        return call

    def _call(self, function: str, args: tuple[Any, ...]) -> Any:
        record = CallRecord(function, clone(args))
        self.last_call = record
        self.calls.append(record)
        info = self._functions.get(function)
        if info is None:
            raise CallProblem("missing", CallOutcome("missing"), function)
        if len(args) < info.min or (info.max is not None and len(args) > info.max):
            raise SignatureProblem("signature", CallOutcome("raised"), function)
        # The repeat goes with the call only when expect_unchanged will certainly make it:
        # it is next in the test, on this proxy, and an argument could change. The test's
        # frame is two up (this, then ``call``); called any other way, the frame there is
        # not a test's and the call goes alone.
        then_again = (
            _current.get(None) is self
            and any(may_change(arg) for arg in record.args)
            and repeat_follows(sys._getframe(2), function)
        )
        outcome = self._worker.call(function, list(args), then_again=then_again)
        record.outcome = outcome
        if outcome.status != "returned":
            problem = CallProblem(outcome.status, outcome, function)
            if self.first_problem is None and outcome.status in ("timeout", "crashed"):
                self.first_problem = (problem, record)
            raise problem
        return outcome.result

    def send_ahead(self, plan: tuple[PlannedCall, ...]) -> int:
        """Send the calls the next test will make (:mod:`~menace_course.checking.plan`) at once.

        Only when every one of them can be made: a function the submission does not define,
        or cannot take that many arguments, is refused here without a call, so a batch
        holding it would only be thrown away. Gives how many calls went.
        """
        for planned in plan:
            info = self._functions.get(planned.function)
            count = len(planned.args)
            if info is None or count < info.min or (info.max is not None and count > info.max):
                return 0
        return self._worker.send_ahead(plan)

    def read_known(self, plan: tuple[PlannedCall, ...]) -> bool:
        """After :meth:`send_ahead` of all of ``plan``: True when every reply was the reference's.

        Each call of ``plan`` is then recorded as the test's own calls would have recorded
        it (:attr:`calls`, :attr:`last_call`). Otherwise the replies read so far wait for
        the test's calls (:meth:`~menace_course.sandbox.child.Child.read_known`).
        """
        outcomes = self._worker.read_known()
        if outcomes is None:
            return False
        for planned, outcome in zip(plan, outcomes, strict=True):
            self.last_call = CallRecord(planned.function, tuple(marshal.loads(planned.key)), outcome)
            self.calls.append(self.last_call)
        return True

    def call_again(self, record: CallRecord) -> Any:
        """Call ``record``'s function again on the objects it was given, as it left them.

        Only for the last call, when it returned: the child still holds those objects.
        Gives back the plain value returned, or raises :class:`CallProblem` as a call
        does. The child can lie about this too; what a lie earns is what a function that
        leaves its input alone earns (see :func:`~menace_course.checking.testing.expect_unchanged`).
        """
        if record is not self.last_call or record.outcome is None or record.outcome.status != "returned":
            raise ValueError("only the last call, when it returned, can be made again")
        outcome = self._worker.call_again()
        if outcome.status != "returned":
            problem = CallProblem(outcome.status, outcome, record.function)
            if self.first_problem is None and outcome.status in ("timeout", "crashed"):
                self.first_problem = (problem, record)
            raise problem
        return outcome.result

    def activate(self) -> contextvars.Token[SubmissionProxy]:
        """Make this the proxy that :func:`current_proxy` returns (for ``expect_unchanged``)."""
        self.last_call = None
        self.first_problem = None
        return _current.set(self)

    @staticmethod
    def deactivate(token: contextvars.Token[SubmissionProxy]) -> None:
        """Undo :meth:`activate`."""
        _current.reset(token)


_IMMUTABLE = (str, int, float, complex, bool, bytes, type(None))


def may_change(value: Any) -> bool:
    """True when a call could change ``value`` in place (a list, a dict, an object...).

    Strings, numbers and tuples or frozensets of them cannot change: a call given only
    these need not be made again to see whether it changed them.
    """
    if type(value) in _IMMUTABLE:
        return False
    if type(value) in (tuple, frozenset):
        return any(may_change(item) for item in value)
    return True


def current_proxy() -> SubmissionProxy:
    """The submission the running test is checking."""
    return _current.get()
