"""The tagged encoding of plain data that crosses between the grader and a sandboxed child.

Only JSON comes back across the trust boundary: the grader never unpickles, unmarshals,
imports or calls anything that came from a submission. (Requests, which only the grader
writes, go the other way as marshal: see :func:`pack`.) Plain JSON loses information a grader needs
(a tuple becomes a list, ``{1: 'a'}`` becomes ``{"1": "a"}``, a ``list`` subclass with a
lying ``__eq__`` looks like a list), so values are tagged:

* ``None``, ``bool``, ``int``, ``float`` and ``str`` of exactly those types travel as JSON;
* a ``list`` of exactly that type travels as a JSON array;
* everything else is an object with a ``"$"`` tag: ``tuple``, ``dict`` (as key/value
  pairs), ``set``, ``frozenset``, special floats, huge integers, and ``object`` for any
  other value (only its type name and a capped ``repr`` cross; the grader sees it as an
  :class:`Opaque` that equals nothing).

This module is copied into the sandbox next to the harness, so it uses only the
standard library and must stay importable on its own.
"""

from __future__ import annotations

import _json
import marshal
import math
from _json import encode_basestring_ascii  # the C string escaper, without importing json

TYPE_CHECKING = False  # not typing's: in the child, importing typing costs more than the rest
if TYPE_CHECKING:
    from typing import Any

#: The C encoder json itself uses, without importing json (None on an interpreter without
#: it: then the hand-written writer below does the job).
_make_encoder: Any = getattr(_json, "make_encoder", None)

#: Deepest nesting encoded; deeper values are reported as opaque.
MAX_DEPTH = 60
#: Longest ``repr`` of an opaque value kept.
MAX_REPR = 200
#: Integers with more digits than this are not sent in full.
MAX_INT_DIGITS = 1000

_type = type
#: What encodes as itself whatever its value; integers do below :data:`_INT_CAP` (in size).
_SELF_ENCODING = frozenset({str, bool, type(None)})
_INT = frozenset({int})
#: The least size of an integer :func:`encode` does not send in full (a bit length over
#: ``MAX_INT_DIGITS * 3.33``).
_INT_CAP = 1 << int(MAX_INT_DIGITS * 3.33)
_isinstance = isinstance
_len = len
_repr = repr


class Opaque:
    """A value the child could not send as plain data: only its type name and a short repr.

    It is never equal to anything but itself, so a returned object whose own ``__eq__``
    always says yes cannot pass a check.
    """

    __slots__ = ("description", "type_name")

    def __init__(self, type_name: str, description: str) -> None:
        """Remember the value's type name and a human description of it."""
        self.type_name = type_name
        self.description = description

    def __repr__(self) -> str:
        """Show the value as the student would recognise it, e.g. ``<generator object>``."""
        return self.description

    def __eq__(self, other: object) -> bool:
        """Equal only to itself."""
        return self is other

    def __hash__(self) -> int:
        """Hash by identity, like ``object``."""
        return id(self)


def encode(value: Any, depth: int = 0) -> Any:
    """Turn a value into tagged, JSON-ready data (see the module docstring)."""
    kind = _type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        if value.bit_length() > MAX_INT_DIGITS * 3.33:  # about MAX_INT_DIGITS decimal digits
            return {"$": "bigint", "digits": _count_digits(value)}
        return value
    if kind is float:
        if math.isfinite(value):
            return value
        return {"$": "float", "v": _repr(value)}
    if depth >= MAX_DEPTH:
        return _opaque(value, f"a value nested more than {MAX_DEPTH} levels deep")
    if kind is list:
        kinds = set(map(_type, value))
        # Strings, booleans, None and integers short of the cap encode as themselves: such
        # a list (a box's beads) is copied whole, without a call per item. A copy: the
        # arguments are copied out the moment a call returns.
        if kinds <= _SELF_ENCODING or (kinds == _INT and -_INT_CAP < min(value) and max(value) < _INT_CAP):
            return value.copy()
        return [encode(item, depth + 1) for item in value]
    if kind is tuple:
        return {"$": "tuple", "v": [encode(item, depth + 1) for item in value]}
    if kind is dict:
        return {
            "$": "dict",
            "v": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()],
        }
    if kind is set or kind is frozenset:
        items = [encode(item, depth + 1) for item in value]
        return {"$": kind.__name__, "v": items}
    return _opaque(value, None)


def _count_digits(value: int) -> int:
    # len(str(n)) fails beyond 4300 digits on Python >= 3.11; bit_length gives a close count.
    return int(abs(value).bit_length() * 0.30103) + 1


def _opaque(value: Any, description: str | None) -> dict[str, Any]:
    type_name = _type(value).__name__
    if description is None:
        try:
            text = _repr(value)
        except BaseException:  # a student's __repr__ may raise anything, even SystemExit
            text = "?"
        if _type(text) is not str:
            text = "?"
        description = f"<{type_name}: {text[:MAX_REPR]}>"
    return {"$": "object", "type": type_name, "repr": description}


class WireError(ValueError):
    """A message did not have the shape this protocol allows."""


#: JSON values that decode to themselves, whatever the depth.
_SELF_DECODING = frozenset({int, float, bool, type(None)})


def decode(data: Any, depth: int = 0) -> Any:
    """Turn tagged data back into Python values; anything unknown raises :class:`WireError`."""
    if depth > MAX_DEPTH + 2:
        raise WireError("nested too deeply")
    if _type(data) is str:
        return _storable(data)
    if data is None or _type(data) in (bool, int, float):
        return data
    if _type(data) is list:
        # Numbers, booleans and None decode to themselves: only the rest needs a call each
        # (most of what crosses is lists of small numbers, a box's beads). A list of only
        # those is a fresh list from the parser, nobody else's: it is the decoded value.
        if set(map(_type, data)) <= _SELF_DECODING:
            return data
        return [item if _type(item) in _SELF_DECODING else decode(item, depth + 1) for item in data]
    if _type(data) is not dict:
        raise WireError(f"unexpected {type(data).__name__}")
    tag = data.get("$")
    if tag == "tuple":
        return tuple(decode(item, depth + 1) for item in _items(data))
    if tag == "dict":
        pairs = _items(data)
        if not all(_type(pair) is list and _len(pair) == 2 for pair in pairs):
            raise WireError("bad dict pairs")
        result = {}
        for key, val in pairs:
            decoded_key = decode(key, depth + 1)
            try:
                result[decoded_key] = decode(val, depth + 1)
            except TypeError as error:  # an unhashable key
                raise WireError("unhashable dict key") from error
        return result
    if tag in ("set", "frozenset"):
        try:
            items = {decode(item, depth + 1) for item in _items(data)}
        except TypeError as error:
            raise WireError("unhashable set item") from error
        return items if tag == "set" else frozenset(items)
    if tag == "float":
        text = data.get("v")
        if text not in ("nan", "inf", "-inf"):
            raise WireError("bad float")
        return float(text)
    if tag == "bigint":
        digits = data.get("digits")
        if _type(digits) is not int:
            raise WireError("bad bigint")
        # Its size in Python's notation, not in words: a report is read in every language.
        return Opaque("int", f"<int, |n| ≈ 10**{max(digits - 1, 0)}>")
    if tag == "object":
        type_name, description = data.get("type"), data.get("repr")
        if _type(type_name) is not str or _type(description) is not str:
            raise WireError("bad object")
        return Opaque(_storable(type_name[:100]), _storable(description[: MAX_REPR + 100]))
    raise WireError(f"unknown tag {tag!r}")


def _storable(text: str) -> str:
    """``text``, with lone surrogates (which no UTF-8 file can hold) written as escapes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _items(data: dict[str, Any]) -> list[Any]:
    items = data.get("v")
    if _type(items) is not list:
        raise WireError("missing items")
    return items


def _write(value: Any, out: list[str]) -> None:
    kind = _type(value)
    if kind is str:
        out.append(encode_basestring_ascii(value))
    elif value is None:
        out.append("null")
    elif kind is bool:
        out.append("true" if value else "false")
    elif kind is int:
        out.append(int.__repr__(value))
    elif kind is float:
        if not math.isfinite(value):
            raise ValueError("a bare NaN or infinity cannot be written")
        out.append(float.__repr__(value))
    elif kind is list:
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif kind is dict:
        out.append("{")
        for index, (key, item) in enumerate(value.items()):
            if _type(key) is not str:
                raise TypeError("object keys must be strings")
            if index:
                out.append(",")
            out.append(encode_basestring_ascii(key))
            out.append(":")
            _write(item, out)
        out.append("}")
    else:
        raise TypeError(f"cannot write {kind.__name__}")


def _cannot_write(value: Any) -> Any:
    raise TypeError(f"cannot write {_type(value).__name__}")


#: json's own C encoder, compact, ASCII only, bare NaN and infinities refused: 2.5 times
#: as fast as :func:`_write` on a reply (a reply is written for every call a test makes).
_encoder = (
    _make_encoder(None, _cannot_write, encode_basestring_ascii, None, ":", ",", False, False, False)
    if _make_encoder is not None
    else None
)


def dumps(message: Any) -> bytes:
    """One message (already tagged) as one line of JSON bytes.

    Without ``import json``, because the child must start fast and importing it costs more
    than everything else it imports: json's C encoder, from ``_json``, writes it (or the
    hand-written :func:`_write`, where there is no C encoder). The grader reads it with the
    real ``json``. A message holds only plain data, and the keys of its objects are strings:
    :func:`encode` made it so.
    """
    if _encoder is not None:
        return ("".join(_encoder(message, 0)) + "\n").encode()
    out: list[str] = []
    _write(message, out)
    out.append("\n")
    return "".join(out).encode()


def reply_head(call_id: int, nonce: str) -> bytes:
    """How every reply's line begins: its id and nonce, as :func:`dumps` writes them.

    The harness puts ``id`` and ``nonce`` first in every reply, and :func:`dumps` writes
    compactly (no spaces), so a reply to ``call_id`` starts with exactly these bytes (a
    nonce is hex: nothing to escape).
    """
    return b'{"id":%d,"nonce":"%s",' % (call_id, nonce.encode())


def loads(line: bytes) -> Any:
    """Parse one line; malformed, too deep or too large input raises :class:`WireError`.

    Bare ``NaN`` and ``Infinity`` are refused, and so are integers of more than 4,300
    digits (Python's own limit on converting text to int).
    """
    try:
        # What json.loads does with bytes, with a decoder made once (loads makes one a call).
        # A line that starts with "{" and no NUL after it is UTF-8 to detect_encoding (no
        # BOM starts with "{", and only a NUL first or second makes it UTF-16 or UTF-32).
        if line[:1] == b"{" and line[1:2] != b"\0":
            encoding = "utf-8"
        else:
            encoding = _json_module().detect_encoding(line)
        return _decoder().decode(line.decode(encoding, "surrogatepass"))
    except (ValueError, RecursionError, MemoryError) as error:
        raise WireError(f"unreadable message: {type(error).__name__}") from error


_DECODER: list[Any] = []


def _json_module() -> Any:
    import json  # the grader's side only: the child never reads JSON

    return json


def _decoder() -> Any:
    """The grader's one JSON decoder, which refuses bare ``NaN`` and ``Infinity``."""
    if not _DECODER:
        _DECODER.append(_json_module().JSONDecoder(parse_constant=_no_constant))
    return _DECODER[0]


def _no_constant(name: str) -> Any:
    # json accepts NaN and Infinity by default; the harness never writes them (it tags
    # special floats), so a bare one was forged.
    raise WireError(f"a bare {name} is not allowed")


def pack(request: Any) -> bytes:
    """A grader-to-child message: marshal, as hex, one line.

    Only the trusted grader writes these, and the child reads them without importing
    json; the child's replies never travel this way (the grader never unmarshals them).

    Raises:
        ValueError: a value that is not plain data (e.g. a function) cannot be sent.
    """
    # Version 2 has no references: a list that appears twice arrives as two lists, as it
    # would through JSON (the child must not see aliasing the test did not mean).
    return marshal.dumps(request, 2).hex().encode() + b"\n"


def argument_key(args: list[Any]) -> bytes:
    """The arguments exactly as :func:`pack` carries them (marshal, version 2), before the hex.

    Raises ``ValueError`` where :func:`pack` would. Two argument lists with the same key
    arrive in the child as the same values of the same types: ``1``, ``1.0`` and ``True``
    differ here, as do a list and a tuple (:mod:`~menace_course.sandbox.batch` matches
    calls sent ahead by it).

    Raises:
        ValueError: a value that is not plain data (e.g. a function) cannot be sent.
    """
    return marshal.dumps(args, 2)


def unpack(line: bytes) -> Any:
    """Read a :func:`pack` message (in the child)."""
    return marshal.loads(bytes.fromhex(line.decode()))
