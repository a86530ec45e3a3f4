"""Whether a test is certain to call ``expect_unchanged()`` right after the call it is making.

A repeat sent with its call saves a round trip across the sandbox's pipe, but only a
repeat the grader would make anyway may be sent: a call the test does not make would
change what a function that keeps state answers next, and cost the student time. So
this reads the test's own bytecode at the call: the call is ``x.<function>(a, b, ...)``
with every argument a plain load (nothing runs between), and the very next statement is
``expect_unchanged()`` (or ``expect_unchanged(hint=...)`` with a constant), with nothing
in between but storing or dropping the result, and that name resolves to the real
:func:`~menace_course.checking.testing.expect_unchanged`. Then, once the call returns, no
code of anyone's runs before ``expect_unchanged`` does, and it repeats the call whenever
an argument could change (the caller checks that). Anything else, any other form or an
unknown bytecode, is "not certain": the call goes alone, as it always did.

Example:
    got = submission.after_game(beads, square, result)   # sent with its repeat
    expect_unchanged()
"""

from __future__ import annotations

import dis
import sys
from types import CodeType, FrameType
from typing import Any

#: Loads that push one value and run no code (3.11 to 3.13).
_PLAIN_LOADS = {
    "LOAD_FAST": 1,
    "LOAD_CONST": 1,
    "LOAD_DEREF": 1,
    "LOAD_FAST_CHECK": 1,
    "LOAD_FAST_LOAD_FAST": 2,
}
#: What may come between the call and ``expect_unchanged``: storing or dropping the result.
_STORES = {"STORE_FAST", "STORE_DEREF", "POP_TOP", "NOP"}
_CALLS = {"CALL", "CALL_KW"}

#: (code, offset of the call) -> the function the call names, when the pattern holds
_known: dict[tuple[CodeType, int], str | None] = {}


def repeat_follows(frame: FrameType, function: str) -> bool:
    """True when ``frame``, now calling ``x.<function>(...)``, calls ``expect_unchanged()`` next."""
    key = (frame.f_code, frame.f_lasti)
    if key not in _known:
        _known[key] = _pattern(frame.f_code, frame.f_lasti)
    if _known[key] != function:
        return False
    # Looked up, not imported: the proxy's side never imports the authors' API (no circle),
    # and a test that calls the real expect_unchanged has loaded it.
    testing = sys.modules.get("menace_course.checking.testing")
    namespace: Any = frame.f_globals
    real = getattr(testing, "expect_unchanged", None)
    return real is not None and type(namespace) is dict and namespace.get("expect_unchanged") is real


def _pattern(code: CodeType, offset: int) -> str | None:
    """The attribute called at ``offset`` when the call and what follows it have the safe form."""
    instructions = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE", "EXTENDED_ARG")]
    # f_lasti may point into the call's inline caches (3.11, 3.12): the last instruction at or before it
    at = next((n for n in range(len(instructions) - 1, -1, -1) if instructions[n].offset <= offset), None)
    if at is None or instructions[at].opname != "CALL":
        return None
    name = _callee(instructions, at)
    return name if name is not None and _then_expect_unchanged(code, instructions, at + 1) else None


def _callee(instructions: list[dis.Instruction], at: int) -> str | None:
    """``x.name`` when the call at ``at`` is ``x.name(plain loads)`` with as many arguments."""
    wanted = instructions[at].arg
    n = at - 1
    if n >= 0 and instructions[n].opname == "PRECALL":  # 3.11
        n -= 1
    pushed = 0
    while n >= 0 and instructions[n].opname in _PLAIN_LOADS:
        pushed += _PLAIN_LOADS[instructions[n].opname]
        n -= 1
    method = instructions[n] if n >= 1 else None
    target = instructions[n - 1] if n >= 1 else None
    if method is None or target is None or pushed != wanted:
        return None
    is_method_load = method.opname == "LOAD_METHOD" or (
        method.opname == "LOAD_ATTR" and "NULL|self" in method.argrepr
    )
    if not is_method_load or target.opname not in ("LOAD_FAST", "LOAD_DEREF", "LOAD_FAST_CHECK"):
        return None
    return str(method.argval)


def _then_expect_unchanged(code: CodeType, instructions: list[dis.Instruction], n: int) -> bool:
    """From ``n``: a store or drop, then ``expect_unchanged()`` or ``expect_unchanged(hint=CONST)``."""
    if n >= len(instructions) or instructions[n].opname not in _STORES:
        return False
    while n < len(instructions) and instructions[n].opname in _STORES:
        n += 1
    if n >= len(instructions):
        return False
    load = instructions[n]
    if load.opname != "LOAD_GLOBAL" or load.argval != "expect_unchanged" or "NULL" not in load.argrepr:
        return False
    tail = instructions[n + 1 : n + 6]
    ops = [i.opname for i in tail]
    if ops[:1] == ["CALL"] and tail[0].arg == 0:  # 3.12, 3.13
        return True
    if ops[:2] == ["PRECALL", "CALL"] and tail[1].arg == 0:  # 3.11
        return True
    # expect_unchanged(hint=CONST): one constant, then the keyword's name
    if ops[:1] != ["LOAD_CONST"]:
        return False
    if ops[1:2] == ["KW_NAMES"]:  # 3.11 (then PRECALL) and 3.12
        call = tail[3] if ops[2:3] == ["PRECALL"] else tail[2]
        names = code.co_consts[tail[1].arg] if tail[1].arg is not None else None
        return names == ("hint",) and call.opname == "CALL" and call.arg == 1
    if ops[1:3] == ["LOAD_CONST", "CALL_KW"]:  # 3.13
        return bool(tail[1].argval == ("hint",) and tail[2].arg == 1)
    return False
