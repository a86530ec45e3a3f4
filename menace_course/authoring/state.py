"""Tests that say they share no state are held to it: the proof ``menace validate`` gives.

A hidden test module may say ``TESTS_SHARE_NO_STATE = True``
(:data:`~menace_course.checking.testing.SHARES_NO_STATE`): each test's verdict depends only
on the answers its own calls get, and no test keeps anything for another. The grader then
lets a planned test whose replies are all, byte for byte, the reference's pass without
running its code (:func:`~menace_course.checking.runner.may_skip`): the calls are still
made in the sandbox, in order, so a submission's own state is as it would be, and what is
left out is only the test's work on answers it already knows to be right.

That is sound only if the promise holds, so validate proves it on every file it knows
(the reference, the starter, the known wrong solutions):

- **no test writes**: the module's state (:func:`state_of`: its globals, followed into
  lists, dicts, sets and objects' attributes, and into its own functions' defaults,
  closures and attributes) is the same after each of its tests as before
  (:func:`tests_that_write`);
- **the same verdicts**: each file gets the same outcome, points, problem and hint on
  every test with skipping and without (``MENACE_SKIP_KNOWN=off``).

What is not followed: objects of hypothesis and of the grader (strategies fill caches of
their own as they are used) and functions of other modules, which are compared by
identity; and the contents of a ``functools.cache``, which has no public view (keep a
submission's answers out of one: a test that would call the submission again finds its
call missing from the plan, and the child starts afresh, so a verdict cannot change
through one, but time is lost).

Example:
    writes = tests_that_write(reference_path, suite, "process")
    writes  # () when no test of a module that says so changed its state
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from pathlib import Path
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType
from typing import Any

from menace_course.authoring.oracle import each_test
from menace_course.checking.proxy import SubmissionProxy
from menace_course.checking.runner import run_case
from menace_course.checking.suite import Case, Suite
from menace_course.models import SandboxKind

#: How deep :func:`state_of` follows containers and attributes.
DEPTH = 8
#: Modules whose objects are compared by identity, not followed (their caches fill as they work).
OPAQUE_MODULES = ("hypothesis", "menace_course", "functools", "weakref", "_weakrefset")


def state_of(module: ModuleType) -> dict[str, Hashable]:
    """What a test could leave behind in ``module``, by global name (dunder names left out)."""
    own = module.__name__
    return {
        name: _shape(value, own, DEPTH)
        for name, value in vars(module).items()
        if not (name.startswith("__") and name.endswith("__"))
    }


def _shape(value: Any, own: str, depth: int) -> Hashable:
    """A comparable picture of ``value``: equal before and after a test that did not change it."""
    if value is None or type(value) in (bool, int, float, complex, str, bytes):
        return (type(value).__name__, repr(value))
    if depth <= 0:
        return ("deep", id(value))
    deeper = depth - 1
    if isinstance(value, (ModuleType, BuiltinFunctionType, type)):
        return ("identity", id(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_shape(item, own, deeper) for item in value))
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, tuple(sorted(repr(_shape(item, own, deeper)) for item in value)))
    if isinstance(value, Mapping) and not _opaque(value):
        items = sorted((repr(_shape(k, own, deeper)), _shape(v, own, deeper)) for k, v in value.items())
        return (type(value).__name__, tuple(items))
    if isinstance(value, MethodType):
        return ("method", id(value.__func__), _shape(value.__self__, own, deeper))
    if isinstance(value, FunctionType):
        if value.__module__ != own:
            return ("identity", id(value))
        cells = tuple(_cell(cell, own, deeper) for cell in value.__closure__ or ())
        return (
            "function",
            id(value),
            _shape(value.__defaults__, own, deeper),
            _shape(value.__kwdefaults__, own, deeper),
            cells,
            _shape(dict(vars(value)), own, deeper),
        )
    if _opaque(value):
        wrapped = vars(value).get("__wrapped__") if hasattr(value, "__dict__") else None
        inner = _shape(wrapped, own, deeper) if isinstance(wrapped, FunctionType) else None
        return ("identity", id(value), inner, _weak_items(value, own, deeper))
    attributes = getattr(value, "__dict__", None)
    slots = tuple(
        _shape(getattr(value, slot, None), own, deeper)
        for klass in type(value).__mro__
        for slot in getattr(klass, "__slots__", ())
        if isinstance(slot, str) and slot not in ("__dict__", "__weakref__")
    )
    shown = _shape(dict(attributes), own, deeper) if isinstance(attributes, dict) else None
    return ("object", type(value).__qualname__, id(value), shown, slots)


def _opaque(value: Any) -> bool:
    module = type(value).__module__ or ""
    return module.split(".")[0] in OPAQUE_MODULES


def _weak_items(value: Any, own: str, depth: int) -> Hashable:
    """How many entries a weak container holds, and what they map to: entries are state too."""
    if isinstance(value, Mapping):
        return ("entries", len(value), tuple(sorted(repr(_shape(v, own, depth)) for v in value.values())))
    try:
        return ("entries", len(value))
    except TypeError:
        return None


def _cell(cell: Any, own: str, depth: int) -> Hashable:
    try:
        return _shape(cell.cell_contents, own, depth)
    except ValueError:  # an empty cell
        return ("empty",)


def tests_that_write(
    submission: Path | tuple[str, bytes], suite: Suite, kind: SandboxKind
) -> tuple[str, ...] | None:
    """Each test of a module that says its tests share no state and that changed it, as ``test: names``.

    The tests run in order on ``submission`` with their code (nothing skipped), as a check
    runs them. None when the file does not load or does not define the function.
    """

    def changes(case: Case, proxy: SubmissionProxy) -> str | None:
        if not case.shares_no_state or case.module is None:
            run_case(case, proxy)
            return None
        before = state_of(case.module)
        run_case(case, proxy)
        after = state_of(case.module)
        changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
        return f"{case.name}: {', '.join(changed)}" if changed else None

    found = each_test(submission, suite, kind, changes)
    return None if found is None else tuple(change for change in found if change is not None)
