"""Type-strict equality for values that came back from a student's function.

``same([1, 2], (1, 2))`` is False, ``same(1, True)`` is False, ``same(1, 1.0)`` is False,
and an :class:`~menace_course.sandbox.wire.Opaque` value equals nothing. Plain ``==``
would accept all of those.
"""

from __future__ import annotations

import copy
from typing import Any

from menace_course import wording

_IMMUTABLE = (int, float, str, bool, bytes, type(None))
_IMMUTABLE_TYPES = frozenset(_IMMUTABLE)
#: Types whose ``==`` is exact and reflexive: a list of them compares as :func:`same` would
#: with one ``==`` (not float: ``nan`` is not equal to itself, and a list's ``==`` takes an
#: object as equal to itself).
_REFLEXIVE_TYPES = frozenset({int, str, bool, bytes, type(None)})


def same(got: Any, expected: Any) -> bool:
    """True when both values have exactly the same types, all the way down, and are equal."""
    if type(got) is not type(expected):
        return False
    if isinstance(expected, list | tuple):
        if len(got) != len(expected):
            return False
        kinds = list(map(type, expected))
        if set(kinds) <= _REFLEXIVE_TYPES and kinds == list(map(type, got)):
            return bool(got == expected)  # a box's beads: one comparison, not one call per item
        return all(map(same, got, expected))
    if isinstance(expected, dict):
        if len(got) != len(expected):
            return False
        for key, value in expected.items():
            matches = [k for k in got if same(k, key)]
            if len(matches) != 1 or not same(got[matches[0]], value):
                return False
        return True
    if isinstance(expected, set | frozenset):
        return len(got) == len(expected) and all(any(same(g, e) for g in got) for e in expected)
    return bool(got == expected)


def first_difference(got: Any, expected: Any) -> str | None:
    """Where two sequences first differ, in words (``"position 4"``), or None."""
    if not isinstance(got, list | tuple) or not isinstance(expected, list | tuple):
        return None
    for index, (a, b) in enumerate(zip(got, expected, strict=False)):
        if not same(a, b):
            return wording.AT_POSITION % {"index": index}
    if len(got) != len(expected):
        return wording.LENGTH_DIFFERS % {"got": len(got), "expected": len(expected)}
    return None


def clone(value: Any) -> Any:
    """A deep copy of plain data, several times faster than :func:`copy.deepcopy`.

    Lists, dicts, sets and tuples are copied all the way down; numbers, strings and None
    are shared (they cannot change); anything else falls back to ``copy.deepcopy``. A list
    holding only those is copied without a call per item (a box's beads, the lesson's usual
    argument), and a tuple holding only those is shared, as ``copy.deepcopy`` shares it.
    """
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if kind is list:
        if set(map(type, value)) <= _IMMUTABLE_TYPES:
            return value.copy()
        return [clone(item) for item in value]
    if kind is dict:
        return {key: clone(item) for key, item in value.items()}
    if kind is tuple:
        if set(map(type, value)) <= _IMMUTABLE_TYPES:
            return value
        return tuple([clone(item) for item in value])
    if kind is set:
        return {clone(item) for item in value}
    return copy.deepcopy(value)
