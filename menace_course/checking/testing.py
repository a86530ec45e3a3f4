"""What challenge authors write tests with: the ``submission`` fixture, checks and markers.

A hidden test is a module-level function ``test_*(submission)`` that receives the student's
submission as its ``submission`` argument (what else pytest would run, a class, a fixture or
a mark, is refused: see :func:`~menace_course.checking.suite.unsupported_forms`). Calling
``submission.after_game(...)`` runs the student's function in the sandbox and gives back
the plain value it returned; the expected value is computed here, in the trusted grader,
and never sent to the student's code.

Example:
    from hypothesis import given, strategies as st
    from menace_course.checking.testing import expect_equal, expect_unchanged, hint, reference

    after_game = reference("after_game")

    @hint("floor_at_zero")
    def test_loss_on_empty_square_stays_at_zero(submission):
        \"\"\"A loss never takes a square below 0 beads.\"\"\"
        expect_equal(submission.after_game([0] * 9, 3, "loss"), [0] * 9)

    @given(beads=st.lists(st.integers(0, 5), min_size=9, max_size=9))
    def test_agrees_on_any_box(submission, beads):
        \"\"\"Any box, any square, any result.\"\"\"
        expect_equal(submission.after_game(beads, 0, "win"), after_game(beads, 0, "win"))
        expect_unchanged()

Wording never lives here: a test names a hint id, and ``feedback_templates/hints/<id>.md.j2``
says it in the lesson's words.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from menace_course import wording
from menace_course.checking.compare import same
from menace_course.checking.failures import CallProblem as CallProblem  # kept importable from here
from menace_course.checking.failures import StudentFailure as StudentFailure
from menace_course.checking.importing import import_file
from menace_course.models import Problem

F = TypeVar("F", bound=Callable[..., Any])

# hypothesis is imported only where a property test is graded (its own module imports it
# anyway): a kit, which has no hidden tests, checks the examples without loading it.

#: The module-level name by which a hidden test module says its tests share no state:
#: ``TESTS_SHARE_NO_STATE = True`` promises that each test's verdict depends only on the
#: answers its own calls get, and that no test writes anything another test reads (a
#: module global, an attribute of an object, a cache keyed by the submission,
#: ``submission.calls``). A planned test of such a module whose replies are then all, byte
#: for byte, the reference's passes without its code running
#: (:meth:`~menace_course.sandbox.child.Child.read_known`). ``menace validate`` proves the
#: promise before it is relied on (:mod:`~menace_course.authoring.state`).
SHARES_NO_STATE = "TESTS_SHARE_NO_STATE"
#: How many examples a property test tries when its author did not say (hypothesis' default).
MAX_EXAMPLES = 100
#: The same, as a hypothesis profile, for running hidden tests under plain pytest (their conftest).
GRADING_PROFILE = "menace-grading"


def grading_settings() -> dict[str, Any]:
    """The settings every property test is graded under: the same file always gets the same score."""
    from hypothesis import HealthCheck, settings

    chosen: dict[str, Any] = {
        "derandomize": True,
        "database": None,
        "deadline": None,
        "print_blob": False,
        "report_multiple_bugs": False,
        "suppress_health_check": list(HealthCheck),
    }
    settings.register_profile(GRADING_PROFILE, max_examples=MAX_EXAMPLES, **chosen)
    return chosen


def __getattr__(name: str) -> Any:
    """``GRADING_SETTINGS``: :func:`grading_settings`, made when first asked for."""
    if name == "GRADING_SETTINGS":
        return grading_settings()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The ``reference/`` folder :func:`reference` loads from: the course being collected or run.
_references: contextvars.ContextVar[Path | None] = contextvars.ContextVar("menace_references", default=None)


# -- failures: a student's mistake, raised inside a test, becomes data in the report ------


# StudentFailure and CallProblem live in checking.failures (the proxy raises CallProblem).


class UnusableAnswer(StudentFailure):
    """The test's own code could not use what the function gave back (the runner raises this).

    A test that raised ``TypeError`` (``sorted()`` of mixed keys), ``AttributeError`` (``.get``
    on a list), ``KeyError``, ``IndexError``... while looking at an answer: the reference's
    answers never do that (``menace validate`` runs every test on the reference, and tests are
    oracle-free, so the same answers take the same path), so the answer was not of the shape
    the challenge asks for. It is the student's failure (``wrong_type``), never a grader error.
    """

    problem = Problem.WRONG_TYPE

    def __init__(self, error: BaseException) -> None:
        """Keep what the test's code raised, for the instructor's record and a visible test's note."""
        super().__init__(wording.UNUSABLE_ANSWER)
        self.error = error


class AnsweredDifferently(StudentFailure):
    """Called again on the same arguments, the function gave another answer.

    Either it keeps something between calls (a box at the top of the file), or it changed
    its arguments and the report of them says otherwise. Its advice is the ``flaky``
    problem's own (values kept between calls), not the test's hint, which speaks of
    something else.
    """

    problem = Problem.FLAKY
    own_advice = True

    def __init__(self) -> None:
        """A plain message: what was seen, never the values."""
        super().__init__(wording.ANSWERED_DIFFERENTLY)


class Mismatch(StudentFailure):
    """The function returned something other than the expected value."""

    def __init__(self, *, expected: Any, got: Any, hint: str | None = None) -> None:
        """Record both values (they are shown only for visible tests)."""
        super().__init__(wording.message(Problem.DIFFERENT), hint=hint)
        self.expected = expected
        self.got = got
        self.problem = Problem.WRONG_TYPE if type(got) is not type(expected) else Problem.DIFFERENT


class ChangedInput(StudentFailure):
    """The function changed an argument it was given, though it must not."""

    problem = Problem.CHANGED_INPUT

    def __init__(self, *, position: int, before: Any, after: Any, hint: str | None = None) -> None:
        """Record which argument changed and how."""
        super().__init__(wording.message(Problem.CHANGED_INPUT), hint=hint)
        self.position = position
        self.before = before
        self.after = after


class Broken(StudentFailure):
    """A property every answer must have does not hold (e.g. a bead count below zero)."""

    problem = Problem.BROKEN_RULE


# -- checks ----------------------------------------------------------------------------


def expect_equal(got: Any, expected: Any, *, hint: str | None = None) -> None:
    """Fail with :class:`Mismatch` unless ``got`` equals ``expected`` and has exactly its types.

    A tuple is not a list here, ``True`` is not ``1``, and an object that claims to equal
    everything is not equal to anything.
    """
    if not same(got, expected):
        raise Mismatch(expected=expected, got=got, hint=hint)


def expect_unchanged(*, hint: str | None = None) -> None:
    """Fail with :class:`ChangedInput` if the last call changed any argument it was given.

    Seen two ways: the arguments as the child reports them after the call, and by
    behaviour, calling the function again on the very objects it was given (a function
    that leaves them alone gives the same answer again). So it needs a function that
    gives the same answer for the same input, as a function that must leave its input
    alone does.
    """
    # Here, not at the top: the author's API stays light where no sandbox is (a kit, an export).
    from menace_course.checking.proxy import current_proxy, may_change

    call = current_proxy().last_call
    if call is None or call.outcome is None:
        return
    # Made whatever the child reported (the calls a test makes never depend on its answers),
    # when the arguments could change at all.
    changeable = any(may_change(arg) for arg in call.args)
    again = current_proxy().call_again(call) if changeable else None
    after_call = call.outcome.args_after
    if len(after_call) != len(call.args):  # no report of the arguments is not "unchanged"
        raise ChangedInput(position=0, before=call.args[:1], after=after_call[:1], hint=hint)
    for position, (before, after) in enumerate(zip(call.args, after_call, strict=True)):
        if not same(before, after):
            raise ChangedInput(position=position, before=before, after=after, hint=hint)
    # What the child reports is the student's output, not a fact: the same objects, called
    # again, give the same answer unless the call changed them (a result that is not plain
    # data equals nothing, so it is left to the value checks).
    first = call.outcome.result
    if changeable and same(first, first) and not same(again, first):
        raise AnsweredDifferently()


def expect(condition: bool, message: str, *, hint: str | None = None) -> None:
    """Fail with :class:`Broken` and ``message`` unless ``condition`` holds."""
    if not condition:
        raise Broken(message, hint=hint)


# -- markers ---------------------------------------------------------------------------


def _mark(function: Any, key: str, value: Any) -> Any:
    marks = dict(getattr(function, "_menace_marks", {}))
    marks[key] = value
    function._menace_marks = marks
    return function


def hint(hint_id: str) -> Callable[[F], F]:
    """Name the hint template a student sees when this test fails."""
    return lambda function: _mark(function, "hint", hint_id)


def points(value: float) -> Callable[[F], F]:
    """Set how many points this test is worth (default 1)."""
    return lambda function: _mark(function, "points", value)


def visible(function: F) -> F:
    """Show this test's inputs and expected value to students (tests are hidden by default)."""
    return _mark(function, "visible", True)  # type: ignore[no-any-return]


def marks_of(function: Any) -> dict[str, Any]:
    """The markers set on a test function (empty when none)."""
    return dict(getattr(function, "_menace_marks", {}))


# -- the reference -----------------------------------------------------------------------


def reference(name: str) -> Any:
    """Load a function from the course's ``reference/<name>.py`` (trusted, in the grader).

    Example:
        after_game = reference("after_game")
        expected = after_game([4] * 9, 0, "win")
    """
    module = reference_module(name)
    return getattr(module, name)


def reference_module(name: str) -> ModuleType:
    """Load the whole ``reference/<name>.py`` module of the current course."""
    folder = _references.get()
    if folder is None:
        raise RuntimeError(
            "no course is active: hidden tests are run by menace, or by pytest with hidden_tests/conftest.py"
        )
    path = folder / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no reference at {path}")
    return import_file(path)


@contextlib.contextmanager
def course_references(reference_dir: Path) -> Iterator[None]:
    """Within the ``with`` block, :func:`reference` loads from ``reference_dir``."""
    token = _references.set(reference_dir)
    try:
        yield
    finally:
        _references.reset(token)


def use_course_references(reference_dir: Path) -> None:
    """Make :func:`reference` load from this folder for the rest of this context.

    For a pytest session's ``conftest.py``; the grader uses :func:`course_references`.
    """
    _references.set(reference_dir)


def with_grading_settings(test: F) -> F:
    """Make a hypothesis test run under :func:`grading_settings`, whatever profile is loaded.

    The author's own ``@settings`` (say ``max_examples``) are kept; what makes grading
    deterministic is imposed. Applied to each property test when a suite is collected,
    so no global hypothesis profile is switched.
    """
    from hypothesis import settings

    inner: Any = test
    applied = getattr(inner, "_hypothesis_internal_settings_applied", False)
    own = inner._hypothesis_internal_use_settings if applied else settings.get_profile("default")
    extra: dict[str, Any] = {} if applied else {"max_examples": MAX_EXAMPLES}
    inner._hypothesis_internal_use_settings = settings(own, **extra, **grading_settings())
    return test
