"""Malformed requests are refused at the door, with a 4xx and a sentence, before any view runs.

:func:`refuse_malformed` runs before every request (``app.before_request``). It refuses,
with 400 and a JSON error (``{"error": "bad_request", "message": ...}`` on the API):

- a NUL byte anywhere in the path, the query or a form field (PostgreSQL cannot store
  or even compare text holding one, and no name, id or program of ours has one);
- a JSON body that is not JSON, nested deeper than :data:`MAX_DEPTH`, or holding a string
  with a NUL or a lone surrogate (``"\\ud800"``: not text, it cannot be encoded to store
  it). Python's parser already refuses integers of more than 4300 digits.

The parsed body is left in Flask's cache, so ``request.get_json()`` in a view reads the
checked value. :func:`printable` escapes what a log line quotes from a request, so a
newline or a NUL in a value can never forge or break a log line.
"""

from __future__ import annotations

import json
from typing import Any

from flask import request

from menace_course.service.refusal import Refusal

#: Deepest JSON a request may send (a check request is 1 level; the lesson widget's log 3).
MAX_DEPTH = 32


def printable(value: object, limit: int = 300) -> str:
    """``value`` for a log line: control characters escaped (``\\n``, ``\\x00``), at most ``limit``."""
    text = str(value)[:limit]
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


def _bad(message: str) -> Refusal:
    return Refusal(400, "bad_request", message)


def _string_problem(text: str) -> str | None:
    if "\x00" in text:
        return "holds a NUL byte"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "holds a lone surrogate (not valid Unicode text)"
    return None


def check_json(value: Any) -> None:
    """Refuse a parsed JSON value that is too deep or holds text that cannot be stored.

    Walks the value without recursion (the depth is what is being checked).

    Raises:
        Refusal: 400, saying what is wrong.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            problem = _string_problem(item)
            if problem:
                raise _bad(f"the JSON body {problem}")
        elif isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise _bad(f"the JSON body is nested more than {MAX_DEPTH} levels deep")
            pairs = item.items() if isinstance(item, dict) else ((None, v) for v in item)
            for key, child in pairs:
                if key is not None:
                    stack.append((key, depth))
                stack.append((child, depth + 1))


def _parse_json_body() -> None:
    raw = request.get_data(cache=True)
    if not raw.strip():
        return
    try:
        value = json.loads(raw)
    except RecursionError:
        raise _bad(f"the JSON body is nested more than {MAX_DEPTH} levels deep") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise _bad(f"the body is not valid JSON ({printable(error, 120)})") from None
    check_json(value)
    # Flask's own cache of the parsed body: the view's get_json() gets this checked value.
    request._cached_json = (value, value)


def refuse_malformed() -> None:
    """The ``before_request`` check described in the module's docstring.

    Raises:
        Refusal: 400, saying what is wrong.
    """
    if "\x00" in request.path:
        raise _bad("the address holds a NUL byte")
    for where, values in (("query", request.args), ("form", request.form)):
        for key, value in values.items(multi=True):
            problem = _string_problem(key) or _string_problem(value)
            if problem:
                raise _bad(f"a {where} field {problem}")
    if request.is_json:
        _parse_json_body()
