"""The checks cell of an exported nbgrader notebook: menace's test API, for a Jupyter kernel.

:mod:`menace_course.exports.nbgrader` pastes this file's code (from the first ``import``
on) into one locked cell, placed after the student's answer. A notebook has no sandbox
and no grader process, so everything a test needs runs here, in the kernel, with the
standard library only (hypothesis too, for property tests):

* ``submission.after_game(...)`` calls the student's function from the notebook's globals
  with a copy of the arguments, within the challenge's time limit, with its printing
  captured (nbgrader gives 0 points to a cell that writes to stderr), and remembers the
  call for :func:`expect_unchanged`;
* :func:`expect_equal`, :func:`expect_unchanged`, :func:`expect` and the markers behave as
  in :mod:`menace_course.checking.testing`, with the same type-strict equality;
* :func:`run_hidden_test` runs one test of a hidden test module whose source the test
  cell carries between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``. The module
  runs once per kernel (its module-level state is shared, as in ``menace grade``); its
  source is registered with :mod:`linecache` so hypothesis derives the same derandomized
  examples from it as ``menace grade`` does. A failure shows only the test's title and
  hint, never the inputs or expected values.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import linecache
import signal
import threading
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from menace_course.checking.compare import same  # notebook: inline

#: Seconds one call may take (the exporter writes the challenge's own limit here).
CALL_SECONDS = 2.0
#: menace's grading profile for hypothesis (the exporter writes the live values of
#: ``menace_course.checking.testing.GRADING_PROFILE`` here; these are the keys it copies).
GRADING_SETTINGS: dict[str, Any] = {
    "derandomize": True,
    "database": None,
    "deadline": None,
    "print_blob": False,
    "report_multiple_bugs": False,
    "max_examples": 100,
}


class StudentFailure(AssertionError):
    """A check found a mistake in the answer."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        """Keep the message; a hint's words are added to it."""
        super().__init__(message + (f"\nHint: {hint}" if hint else ""))
        self.hint = hint


class Mismatch(StudentFailure):
    """The function returned something other than the expected value."""


class ChangedInput(StudentFailure):
    """The function changed an argument it was given."""


class Broken(StudentFailure):
    """A rule every answer must keep does not hold."""


class CallTimeout(StudentFailure):
    """The function did not finish in time."""


def fresh(value: Any) -> Any:
    """A copy as ``menace``'s wire makes it: plain containers rebuilt, shared parts not shared.

    ``copy.deepcopy`` would keep ``[game] * 3`` as three references to one list; across
    the sandbox's wire they arrive as three lists, and the copy here must agree.
    """
    kind = type(value)
    if kind is list:
        return [fresh(v) for v in value]
    if kind is tuple:
        return tuple(fresh(v) for v in value)
    if kind is dict:
        return {fresh(k): fresh(v) for k, v in value.items()}
    if kind in (set, frozenset):
        return kind(fresh(v) for v in value)
    return copy.deepcopy(value)


class CallOutcome:
    """What one call did, as ``menace``'s proxy records it (``status``, ``result``, ``args_after``)."""

    def __init__(self, status: str, result: Any = None, args_after: tuple[Any, ...] = ()) -> None:
        """``status`` is ``returned``, ``raised``, ``timeout`` or ``dead``."""
        self.status, self.result, self.args_after = status, result, args_after


class CallRecord:
    """One call a test made: the function, a copy of the arguments as sent, and its outcome."""

    def __init__(self, function: str, args: tuple[Any, ...]) -> None:
        """The outcome is filled in when the call ends."""
        self.function, self.args = function, args
        self.outcome: CallOutcome | None = None


class Submission:
    """The student's functions, called the way ``menace`` calls them, every call remembered."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        """``namespace`` is the notebook's globals, where the answer cell defined the function."""
        self._namespace = namespace
        self.calls: list[CallRecord] = []
        self.last_call: CallRecord | None = None
        #: functions that ran out of time: like ``menace``, they are not called again
        self.timed_out: set[str] = set()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        """``submission.after_game`` calls the notebook's ``after_game``."""
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args: Any) -> Any:
            return self._call(name, args)

        return call

    def _call(self, name: str, args: tuple[Any, ...]) -> Any:
        function = self._namespace.get(name)
        if not callable(function):
            raise StudentFailure(f"{name} is not defined: run the cell with your answer")
        record = CallRecord(name, fresh(args))
        self.calls.append(record)
        self.last_call = record
        if name in self.timed_out:
            record.outcome = CallOutcome("dead")
            raise CallTimeout(f"not checked: {name} took too long earlier")
        sent = fresh(args)
        try:
            with _quiet(), _time_limit(name):
                result = function(*sent)
        except CallTimeout:
            self.timed_out.add(name)
            record.outcome = CallOutcome("timeout")
            raise
        except BaseException:
            record.outcome = CallOutcome("raised", None, fresh(sent))
            raise
        record.outcome = CallOutcome("returned", fresh(result), fresh(sent))
        return fresh(result)


@contextlib.contextmanager
def _time_limit(name: str) -> Iterator[None]:
    """Stop the call after ``CALL_SECONDS`` (where the kernel allows a timer signal)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise CallTimeout(f"{name} did not finish within {CALL_SECONDS:g} seconds")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Keep printing and warnings out of the cell's output (stderr would cost the points)."""
    with (
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        yield


def expect_equal(got: Any, expected: Any, *, hint: str | None = None) -> None:
    """Fail unless ``got`` equals ``expected`` with exactly the same types."""
    if not same(got, expected):
        raise Mismatch(f"expected {expected!r}, got {got!r}", hint=hint)


def expect_unchanged(*, hint: str | None = None) -> None:
    """Fail if the last call changed any argument it was given."""
    call = submission.last_call
    if call is None or call.outcome is None:
        return
    for position, (before, after) in enumerate(zip(call.args, call.outcome.args_after, strict=False)):
        if not same(before, after):
            raise ChangedInput(
                f"{call.function} changed argument {position + 1}: it was {before!r}, then {after!r}",
                hint=hint,
            )


def expect(condition: bool, message: str, *, hint: str | None = None) -> None:
    """Fail with ``message`` unless ``condition`` holds."""
    if not condition:
        raise Broken(message, hint=hint)


def _marker(key: str, value: Any) -> Callable[[Any], Any]:
    def mark(function: Any) -> Any:
        function._menace_marks = {**getattr(function, "_menace_marks", {}), key: value}
        return function

    return mark


def hint(hint_id: str) -> Callable[[Any], Any]:
    """Name a test's hint (the notebook shows the hint's words in the test cell)."""
    return _marker("hint", hint_id)


def points(value: float) -> Callable[[Any], Any]:
    """A test's points (the notebook gives them as the cell's nbgrader points)."""
    return _marker("points", value)


def visible(function: Any) -> Any:
    """Mark a test visible (in a notebook its code stays hidden all the same)."""
    return _marker("visible", True)(function)


_MODULES: dict[str, types.ModuleType] = {}


def _load(source: str, filename: str, names: dict[str, Any]) -> types.ModuleType:
    """Run ``source`` as a module once per kernel, registered so ``inspect`` can read it."""
    key = hashlib.sha256((filename + "\0" + source).encode()).hexdigest()
    if key not in _MODULES:
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        module = types.ModuleType(filename.strip("<>"))
        module.__dict__.update(names)
        exec(compile(source, filename, "exec"), module.__dict__)
        _MODULES[key] = module
    return _MODULES[key]


def _use_grading_profile() -> None:
    from hypothesis import HealthCheck, settings

    settings.register_profile("menace-grading", suppress_health_check=list(HealthCheck), **GRADING_SETTINGS)
    settings.load_profile("menace-grading")


def run_hidden_test(
    name: str, *, title: str, hint_words: str, source: str, filename: str, references: dict[str, str]
) -> None:
    """Run ``test_<name>`` of the hidden module ``source``; on failure say only title and hint."""
    try:
        with _quiet():
            _use_grading_profile()
            loaded = {ref: _load(text, f"<reference {ref}>", {}) for ref, text in references.items()}
            api = {
                "expect": expect,
                "expect_equal": expect_equal,
                "expect_unchanged": expect_unchanged,
                "hint": hint,
                "points": points,
                "visible": visible,
                "StudentFailure": StudentFailure,
                "Mismatch": Mismatch,
                "ChangedInput": ChangedInput,
                "Broken": Broken,
                "reference": lambda ref: getattr(loaded[ref], ref),
                "reference_module": lambda ref: loaded[ref],
            }
            test = getattr(_load(source, filename, api), f"test_{name}")
    except Exception as error:  # the grader's problem, not the student's: say what it is
        raise RuntimeError(
            f"the hidden tests could not be loaded ({type(error).__name__}: {error}); "
            "the kernel needs Python 3.10+ and hypothesis"
        ) from None
    try:
        with _quiet():
            test(submission)
    except Exception:  # any failure, or an error in the answer: the test is lost
        message = f"hidden test failed: {title}" + (f"\nHint: {hint_words}" if hint_words else "")
        raise AssertionError(message) from None


#: The notebook's student functions (in the notebook, ``globals()`` is the notebook's namespace).
submission = Submission(globals())
