"""What challenge authors write tests with: the ``submission`` fixture, checks and markers.

A hidden test is a plain pytest function that receives the student's submission as its
``submission`` argument. Calling ``submission.after_game(...)`` runs the student's function
in the sandbox and gives back the plain value it returned; the expected value is computed
here, in the trusted grader, and never sent to the student's code.

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

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings

from menace_course.checking.compare import same

F = TypeVar("F", bound=Callable[..., Any])

#: The hypothesis profile every suite runs under: the same file always gets the same score.
GRADING_PROFILE = "menace-grading"
settings.register_profile(
    GRADING_PROFILE,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    report_multiple_bugs=False,
    max_examples=100,
    suppress_health_check=list(HealthCheck),
)

#: The course whose references :func:`reference` loads (set by the runner before collecting).
_course_reference_dir: list[Path] = []


# -- failures: a student's mistake, raised inside a test, becomes data in the report ------


class StudentFailure(AssertionError):
    """A check found a mistake in the student's code. Raise a subclass from a test.

    ``hint`` names a template in ``feedback_templates/hints/``; the test's own ``@hint``
    is used when it is None.
    """

    problem = "different"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        """Keep a plain message and an optional hint id."""
        super().__init__(message)
        self.hint = hint


class Mismatch(StudentFailure):
    """The function returned something other than the expected value."""

    def __init__(self, *, expected: Any, got: Any, hint: str | None = None) -> None:
        """Record both values (they are shown only for visible tests)."""
        super().__init__("returned a different value", hint=hint)
        self.expected = expected
        self.got = got
        self.problem = "wrong_type" if type(got) is not type(expected) else "different"


class ChangedInput(StudentFailure):
    """The function changed an argument it was given, though it must not."""

    problem = "changed_input"

    def __init__(self, *, position: int, before: Any, after: Any, hint: str | None = None) -> None:
        """Record which argument changed and how."""
        super().__init__("changed the list it was given", hint=hint)
        self.position = position
        self.before = before
        self.after = after


class Broken(StudentFailure):
    """A property every answer must have does not hold (e.g. a bead count below zero)."""

    problem = "broken_rule"


class CallProblem(StudentFailure):
    """The call itself went wrong in the sandbox: raised, took too long, stopped Python.

    Raised by the ``submission`` fixture, not by authors. ``status`` is the worker's
    status (``raised``, ``timeout``, ``crashed``, ``missing``, ``budget``, ``dead``).
    """

    def __init__(self, status: str, outcome: Any, function: str) -> None:
        """Keep the raw call outcome for the report."""
        super().__init__(f"{function}: {status}")
        self.status = status
        self.outcome = outcome
        self.function = function
        self.problem = status


# -- checks ----------------------------------------------------------------------------


def expect_equal(got: Any, expected: Any, *, hint: str | None = None) -> None:
    """Fail with :class:`Mismatch` unless ``got`` equals ``expected`` and has exactly its types.

    A tuple is not a list here, ``True`` is not ``1``, and an object that claims to equal
    everything is not equal to anything.
    """
    if not same(got, expected):
        raise Mismatch(expected=expected, got=got, hint=hint)


def expect_unchanged(*, hint: str | None = None) -> None:
    """Fail with :class:`ChangedInput` if the last call changed any argument it was given."""
    from menace_course.checking.proxy import current_proxy

    call = current_proxy().last_call
    if call is None or call.outcome is None:
        return
    for position, (before, after) in enumerate(zip(call.args, call.outcome.args_after, strict=False)):
        if not same(before, after):
            raise ChangedInput(position=position, before=before, after=after, hint=hint)


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
    if not _course_reference_dir:
        raise RuntimeError("no course is active: tests must be run by menace or its pytest plugin")
    path = _course_reference_dir[-1] / f"{name}.py"
    key = f"menace_reference_{name}_{abs(hash(str(path)))}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    if spec is None or spec.loader is None or not path.is_file():
        raise FileNotFoundError(f"no reference at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


def use_course_references(reference_dir: Path) -> None:
    """Make :func:`reference` load from this folder (called by the runner and pytest plugin)."""
    _course_reference_dir.append(reference_dir)
