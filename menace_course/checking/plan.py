"""The calls a property test will make, learnt once from the reference, to send in one batch.

Tests are oracle-free (:mod:`~menace_course.authoring.oracle`, checked by ``menace
validate``): a test makes the same calls, with the same arguments, whatever the answers,
until it stops. So a property test's calls for any submission are the calls it makes on
the course's reference, up to the point where it stops. They are learnt here by running
the test once in the grader, with the reference answering in place of a child
(:class:`ReferenceAnswers`), and kept per suite version: in the process, and in a file of
the trusted cache sealed with its key (as the generated examples are,
:class:`~menace_course.checking.replay.ExampleStore`), so that a process that checks one
file (``menace check``, a warm checker's copy) reads them instead of running the tests twice.

The runner sends a test's calls to the child before the test runs
(:meth:`~menace_course.checking.proxy.SubmissionProxy.send_ahead`); the child answers them
one after another, and each call the test makes only reads its reply. A call is used only
when it is, byte for byte, the request the test makes at that point; anything else makes
the child start again with the calls really made (:meth:`~menace_course.sandbox.child.Child.send_ahead`),
so a plan that is wrong costs time, never a verdict.

Each planned call also carries the reply the reference's answer makes
(:class:`~menace_course.sandbox.batch.KnownReply`): a submission whose reply is that very
line is read without parsing it (the values are the plan's), and any other reply is read
strictly. The outcome is a function of the reply's bytes either way, so a reference edited
since a plan was learnt costs parsing, never a verdict.

Only the reference's answers and the test's own inputs are in a plan: nothing a
submission said reaches another submission's child. A property test is planned when
the reference passes it; an example or a plain hidden test makes a call or two, which
go one by one as before.
"""

from __future__ import annotations

import dataclasses
import marshal
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from menace_course.atomic import write_atomic
from menace_course.cache import seal, trusted_folder, unseal
from menace_course.checking.compare import clone
from menace_course.checking.proxy import SubmissionProxy
from menace_course.checking.replay import hypothesis_version
from menace_course.checking.suite import Case, Suite
from menace_course.checking.testing import reference_module
from menace_course.models import TestKind
from menace_course.sandbox.batch import KnownReply, PlannedCall
from menace_course.sandbox.outcomes import CallOutcome, FunctionInfo

#: Tests making fewer calls than this go one by one: a batch saves little on them, and
#: one the test leaves early costs the child a fresh start.
FEWEST_CALLS = 4
#: The version of a plan file's contents (part of its name: a file of another is not read).
PLAN_FORMAT = "p2"
#: Suite versions whose plans a process keeps (a service that follows edits sees new ones).
KEPT_SUITES = 32

Plans = Mapping[str, tuple[PlannedCall, ...]]
_plans: dict[tuple[str, str], Plans] = {}


def forget() -> None:
    """Forget the plans learnt or read so far in this process (they are read again when asked)."""
    _plans.clear()


class _Unplannable(BaseException):
    """The test cannot be planned: the reference is not there or raised, or a call was repeated twice.

    Not an ``Exception``, so that nothing of the test's machinery takes it for a failure to
    explain (a visible property test would otherwise run hypothesis to shrink it).
    """


class ReferenceAnswers:
    """Answers a proxy's calls with the course's reference, in the grader, and writes them down.

    Stands where a sandboxed child stands (:class:`~menace_course.checking.proxy.Worker`).
    The reference is trusted course code; it runs on copies of the arguments, and its
    answers are copies too, as values that crossed the pipe would be.
    """

    def __init__(self, slug: str) -> None:
        """Answer with ``reference/<slug>.py`` of the course whose test is running."""
        self.slug = slug
        self.calls: list[PlannedCall] = []
        self._last: tuple[str, list[Any]] | None = None
        self._module: ModuleType | None = None

    def _answer(self, name: str, objects: list[Any]) -> Any:
        """The reference's ``name(*objects)``, its module loaded once (while the test runs: its course's)."""
        try:
            if self._module is None:
                self._module = reference_module(self.slug)
            return getattr(self._module, name)(*objects)
        except Exception as error:
            raise _Unplannable(f"the reference's {name}: {type(error).__name__}") from error

    def _returned(self, function: str, objects: list[Any]) -> tuple[CallOutcome, KnownReply | None]:
        """The reference's answer on ``objects``, as a call that returned (copies, as if sent),
        and the reply the harness writes for it."""
        result = self._answer(function, objects)
        outcome = CallOutcome("returned", result=clone(result), args_after=tuple(clone(objects)))
        return outcome, KnownReply.of(outcome.result, outcome.args_after)

    def call(self, function: str, args: list[Any], then_again: bool = False) -> CallOutcome:
        """Call the reference's ``function`` on a copy of ``args``; note the call and its reply."""
        objects = clone(list(args))  # the reference works on copies: ``args`` stay as the test made them
        self._last = (function, objects)
        outcome, reply = self._returned(function, objects)
        self.calls.append(PlannedCall.of(function, list(args), reply=reply))
        return outcome

    def call_again(self) -> CallOutcome:
        """Call the last call's function again on the objects it left; note the repeat and its reply."""
        last = self.calls[-1] if self.calls else None
        if self._last is None or last is None or last.then_again:
            raise _Unplannable("a call made again twice")
        outcome, reply = self._returned(*self._last)
        self.calls[-1] = dataclasses.replace(last, then_again=True, again_reply=reply)
        return outcome

    def send_ahead(self, calls: Sequence[PlannedCall]) -> int:
        """Nothing to send: the reference answers at once."""
        return 0

    def read_known(self) -> tuple[CallOutcome, ...] | None:
        """Nothing was sent ahead, so nothing is read."""
        return None


class _AnyFunction(dict[str, FunctionInfo]):
    """The reference's names, as a proxy checks them: any name, any number of arguments."""

    def get(self, key: str, default: Any = None) -> FunctionInfo:
        return FunctionInfo(is_function=True)


def learn(case: Case, slug: str) -> tuple[PlannedCall, ...] | None:
    """The calls ``case`` makes on the reference of ``slug``; None when it does not pass."""
    answers = ReferenceAnswers(slug)
    proxy = SubmissionProxy(answers, _AnyFunction())
    token = proxy.activate()
    try:
        case.run(proxy)
    except (Exception, _Unplannable):  # the reference fails it, or it cannot be planned: one by one
        return None
    finally:
        proxy.deactivate(token)
    return tuple(answers.calls)


def plans_for(suite: Suite) -> Plans:
    """Each property test's calls (by case name), learnt the first time a process asks.

    None at all with ``MENACE_BATCH=off`` in the environment: every call then goes one by one
    (to compare, or to rule batching out when something looks wrong).
    """
    if os.environ.get("MENACE_BATCH") == "off" or all(c.kind is not TestKind.PROPERTY for c in suite.cases):
        return {}  # (a student's kit has no property test, and perhaps no hypothesis)
    key = (suite.challenge.slug, suite.suite_hash)
    plans = _plans.get(key)
    if plans is None:
        path = _plan_file(suite)
        plans = _read(path) if path is not None else None
        if plans is None:
            plans = learn_all(suite)
            if path is not None:
                _write(path, plans)
        while len(_plans) >= KEPT_SUITES:
            del _plans[next(iter(_plans))]
        _plans[key] = plans
    return plans


def learn_all(suite: Suite) -> Plans:
    """Each property test's calls, learnt from the reference (tests it fails are left out)."""
    learnt = {}
    for case in suite.cases:
        if case.kind is TestKind.PROPERTY:
            calls = learn(case, suite.challenge.slug)
            if calls is not None and len(calls) >= FEWEST_CALLS:
                learnt[case.name] = calls
    return learnt


def _plan_file(suite: Suite) -> Path | None:
    """Where this suite version's plans are kept (None where the cache cannot be trusted)."""
    folder = trusted_folder("plans")
    try:
        version = hypothesis_version()
    except ImportError:  # no hypothesis here (PackageNotFoundError): nothing generated to plan from
        return None
    if folder is None:
        return None
    return folder / f"{suite.challenge.slug}-{suite.suite_hash}-h{version}-{PLAN_FORMAT}.plans"


def _read(path: Path) -> Plans | None:
    """The plans in ``path``, when it is there and sealed with the cache's key; else None."""
    try:
        data = unseal(path.read_bytes())
        if data is None:
            return None  # not sealed with our key: learnt again, never trusted
        stored: dict[str, list[_Stored]] = marshal.loads(data)
        return {name: tuple(_planned(*call) for call in calls) for name, calls in stored.items()}
    except (OSError, ValueError, EOFError, TypeError, AttributeError):
        return None  # absent or damaged: learnt again


#: A planned call as its file keeps it: the function, the arguments' key, whether it is
#: made again, and the known replies to it and its repeat (``tail, values``; None: unknown).
_Stored = tuple[str, bytes, bool, tuple[bytes, bytes] | None, tuple[bytes, bytes] | None]


def _planned(
    function: str,
    key: bytes,
    then_again: bool,
    reply: tuple[bytes, bytes] | None,
    again: tuple[bytes, bytes] | None,
) -> PlannedCall:
    return PlannedCall(function, tuple(marshal.loads(key)), key, then_again, _known(reply), _known(again))


def _known(stored: tuple[bytes, bytes] | None) -> KnownReply | None:
    if stored is None:
        return None
    tail, values = stored
    if type(tail) is not bytes or type(values) is not bytes:
        raise TypeError("a known reply is two byte strings")
    return KnownReply(tail, values)


def _kept(reply: KnownReply | None) -> tuple[bytes, bytes] | None:
    return None if reply is None else (reply.tail, reply.values)


def _write(path: Path, plans: Plans) -> None:
    """Keep ``plans`` in ``path``, sealed; a cache that cannot be written is not an error."""
    stored = {
        name: [
            (call.function, call.key, call.then_again, _kept(call.reply), _kept(call.again_reply))
            for call in calls
        ]
        for name, calls in plans.items()
    }
    sealed = seal(marshal.dumps(stored))
    if sealed is not None:
        try:
            write_atomic(path, sealed)
        except OSError:
            pass
