"""Read a TOML table into a frozen dataclass, checking every key and type against the class.

``challenge.toml`` is read once, against one declared schema: the dataclasses in
:mod:`menace_course.catalog` (and :class:`~menace_course.limits.Limits`). Their fields and
type annotations *are* the schema; this module walks them. A key the class does not
have, a missing required key, or a value of the wrong type is a :class:`SchemaError`
naming the key and what was expected, e.g.::

    limits.call_seconds: expected a number, got the string '2'

Why a small validator of our own rather than pydantic or msgspec: ``menace check`` reads
challenge.toml on every run and must start in a tenth of a second (issue 14), and the
types here are few (str, int, float, bool, None, tuples, nested tables). pydantic costs
about 100 ms of import, msgspec brings typing_extensions and datetime (5 to 10 ms); this
costs nothing beyond what is already imported, and its messages are written for authors.

Supported annotations: ``str``, ``int``, ``float`` (an int is accepted), ``bool``,
``Any``, ``X | None``, ``tuple[X, ...]`` (a TOML array), and a dataclass (a TOML table), or
a tuple of them (an array of tables). A bool is never taken for a number.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, TypeVar

T = TypeVar("T")

_NAMES = {str: "a string", int: "a whole number", float: "a number", bool: "true or false"}


class SchemaError(ValueError):
    """A value in a TOML file does not fit the schema; the message names the key and what was expected."""


def _describe(value: Any) -> str:
    kind = {
        str: "the string",
        bool: "the boolean",
        int: "the number",
        float: "the number",
        list: "the array",
        dict: "a table",
    }.get(type(value), type(value).__name__)
    shown = repr(value) if not isinstance(value, dict) else ""
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{kind} {shown}".rstrip()


@functools.cache
def schema_of(cls: type) -> tuple[dict[str, dataclasses.Field[Any]], dict[str, Any]]:
    """``cls``'s fields that a file may set, by name, and the types they are declared with.

    Worked out once per class: :func:`typing.get_type_hints` evaluates every annotation
    again each time it is asked (this module's annotations are strings), which cost a
    check about 6 ms of its catalog reading when it was asked once per table. The warm
    checker asks it for the catalog's classes before it forks (:func:`prime`).
    """
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    return fields, typing.get_type_hints(cls)


def prime(kind: Any) -> None:
    """Work out the schema of ``kind`` and of every dataclass it holds, at any depth, now."""
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        for inner in schema_of(kind)[1].values():
            prime(inner)
    for part in typing.get_args(kind):
        prime(part)


def read_table(cls: type[T], data: Any, where: str = "") -> T:
    """Build ``cls`` (a dataclass) from a TOML table, or raise :class:`SchemaError`.

    ``where`` is the table's path in the file (``limits``, ``examples[2]``), for messages.
    """
    label = f"[{where}]" if where else "the file"
    if not isinstance(data, dict):
        raise SchemaError(f"{where or 'the file'}: expected a table, got {_describe(data)}")
    fields, hints = schema_of(cls)  # type: ignore[arg-type]  # a class is hashable
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise SchemaError(
            f"{label}: unknown key {', '.join(repr(k) for k in unknown)}; "
            f"the keys are: {', '.join(sorted(fields))}"
        )
    values: dict[str, Any] = {}
    for name, field in fields.items():
        key = f"{where}.{name}" if where else name
        if name not in data:
            required = field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
            if required:
                raise SchemaError(f"{key}: missing (it is required)")
            continue
        values[name] = _read(hints[name], data[name], key)
    return cls(**values)


def _read(kind: Any, value: Any, key: str) -> Any:
    if kind is Any:
        return value
    origin = typing.get_origin(kind)
    if origin in (types.UnionType, typing.Union):
        options = typing.get_args(kind)
        if value is None and type(None) in options:
            return None
        real = [o for o in options if o is not type(None)]
        if len(real) == 1:
            return _read(real[0], value, key)
        raise TypeError(f"unsupported annotation {kind}")  # a mistake in our schema, not the file
    if origin is tuple:
        item, *rest = typing.get_args(kind)
        if rest != [Ellipsis]:
            raise TypeError(f"unsupported annotation {kind}")
        if not isinstance(value, list):
            raise SchemaError(f"{key}: expected an array, got {_describe(value)}")
        return tuple(_read(item, v, f"{key}[{i}]") for i, v in enumerate(value, start=1))
    if dataclasses.is_dataclass(kind):
        return read_table(kind, value, key)  # type: ignore[arg-type]
    if kind in _NAMES:
        ok = type(value) is kind or (kind is float and type(value) is int)
        if not ok:
            raise SchemaError(f"{key}: expected {_NAMES[kind]}, got {_describe(value)}")
        return float(value) if kind is float else value
    raise TypeError(f"unsupported annotation {kind}")
