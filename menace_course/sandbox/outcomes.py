"""What the sandboxed child says, as typed facts: outcomes of loading and of calls.

The child's messages are untrusted: student code shares the child's interpreter and can
write anything to any of its file descriptors. :func:`read_ready` and :func:`read_reply`
read them strictly. Every field must have exactly the type and range this protocol
allows, or :class:`ProtocolError` is raised; nothing else ever escapes them, whatever the
message holds (``Infinity``, a 4,000-digit integer, a list where a string belongs, a
lone surrogate). The worker turns a :class:`ProtocolError` into a crash of the
submission: malformed is the submission's problem, never the grader's.

A message also has to carry the nonce the grader sent with its request. Only the
harness reads requests, and student code cannot reach the harness's frames, so a reply
with the right id but the wrong nonce was written by student code: :class:`ForgedMessage`.
Nothing here runs or imports student code.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from typing import Any

from menace_course.models import CallStatus, Line, LoadStatus
from menace_course.sandbox import wire
from menace_course.sandbox.channel import ReplyTooLarge

#: Caps on what a message may hold (longer strings are cut, bigger numbers refused).
MAX_TEXT = 4096
MAX_NAME = 200
MAX_FRAMES = 50
MAX_FUNCTIONS = 10_000
MAX_PARAMS = 255
MAX_FINDINGS = 20
MAX_LINE = 10_000_000
MAX_PRINTED = 1_000_000
#: A notebook's cells that stopped, described one by one (the rest only counted).
MAX_CELL_ERRORS = 50
MAX_CELLS = 100_000


@dataclass(frozen=True)
class StudentException:
    """An exception raised by student code, as plain facts."""

    type_name: str
    message: str
    frames: tuple[Line, ...] = ()  #: the student's own lines (the report's own type)


def over_the_cap(reply_bytes: int) -> StudentException:
    """What a ``crashed`` outcome carries when the worker refused a reply over ``reply_bytes``.

    Python did not stop: the child sent more than one reply may hold, and the worker
    stopped it. :func:`refused_for_size` recognises it; the message is the cap in bytes.
    """
    return StudentException(ReplyTooLarge.__name__, str(reply_bytes))


def refused_for_size(outcome: CallOutcome | LoadOutcome) -> bool:
    """True when ``outcome`` is the worker's refusal of a reply over the cap (:func:`over_the_cap`)."""
    exception = outcome.exception
    return (
        outcome.status == "crashed"
        and exception is not None
        and exception.type_name == ReplyTooLarge.__name__
    )


@dataclass(frozen=True)
class Printed:
    """What student code printed during one call (capped)."""

    text: str = ""
    dropped: int = 0


#: Nothing printed (frozen, so one is shared by every outcome that printed nothing).
_NOTHING_PRINTED = Printed()


@dataclass(frozen=True)
class Tampering:
    """Something student code did that the harness's detector recorded, or a forged message.

    ``event`` is the audit event (``sys.addaudithook``, ``gc.get_objects``, ...; see
    ``harness.RECORDED_EVENTS``) or ``forged message``, and ``detail`` a short plain
    description. Like everything from the child, it is the student's output: it can make
    a report "needs review", never a grade.
    """

    event: str
    detail: str = ""


@dataclass(frozen=True)
class CallOutcome:
    """What one call did.

    ``status`` is ``returned``, ``raised``, ``timeout``, ``crashed``, ``missing``,
    ``budget`` (the submission's time budget ran out) or ``dead`` (not called, because
    the function timed out or crashed too often before). A ``crashed`` call whose
    ``exception`` is named ``ReplyTooLarge`` did not stop Python: the worker refused a
    reply over ``Limits.reply_bytes`` (the exception's message) and stopped the child.
    """

    status: CallStatus
    result: Any = None
    args_after: tuple[Any, ...] = ()
    printed: Printed = field(default_factory=Printed)
    exception: StudentException | None = None
    exit_code: int | None = None
    seconds: float = 0.0
    attempts: tuple[Tampering, ...] = ()


@dataclass(frozen=True)
class Confinement:
    """What the harness says it did to itself before loading student code.

    ``uid`` is the user student code runs as; ``applied`` and ``missing`` name the limits
    (``memory``, ``cpu``, ``file_size``, ``open_files``, ``processes``, ``core``,
    ``seccomp``, ``ipc namespace``) it could and could not apply on this machine.
    """

    uid: int = -1
    applied: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


@dataclass(frozen=True)
class FunctionInfo:
    """A name the submission defines, as the child reports it: a function's parameters and arity."""

    params: tuple[str, ...] = ()
    min: int = 0  #: the fewest arguments it takes
    max: int | None = None  #: the most (None: ``*args``)
    is_function: bool = False  #: False for any other name (a class, a value)


@dataclass(frozen=True)
class CellError:
    """A notebook's cell that stopped with an error while the child ran the cells one by one."""

    cell: int  #: which code cell, counted from 0 among the cells the grader sent
    exception: StudentException


@dataclass(frozen=True)
class LoadOutcome:
    """What happened when the child imported the submission."""

    status: LoadStatus  #: ``ready``, ``raised``, ``timeout`` or ``crashed``
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    printed: Printed = field(default_factory=Printed)
    exception: StudentException | None = None
    exit_code: int | None = None
    attempts: tuple[Tampering, ...] = ()
    confinement: Confinement | None = None
    #: a notebook run cell by cell: the first cells that stopped, and how many did in all
    cell_errors: tuple[CellError, ...] = ()
    cells_failed: int = 0


class SandboxFailure(Exception):
    """The sandbox could not confine the harness: a problem of this machine, not of the file.

    For example bubblewrap could not start, or dropping to the unprivileged user failed.
    """


class MachineStarved(SandboxFailure):
    """A wait on the child ran out while the child had not had its limit: the machine's fault.

    A wait is extended by the time the child waited for a CPU, up to a ceiling. Past the
    ceiling the child may still have had less time than its limit: the machine was too
    busy to give it, which is never the student's timeout. The check (or the test) is the
    grader's error, and the wait is not charged to the submission.
    """


class ProtocolError(Exception):
    """The child's message broke the protocol (shape, types, size): treated as a crash."""


class ForgedMessage(ProtocolError):
    """A message that does not carry the request's nonce: written by student code, not the harness."""


# -- strict field readers ------------------------------------------------------------------


def _dict(value: Any, what: str) -> dict[str, Any]:
    if type(value) is not dict:
        raise ProtocolError(f"{what}: not an object")
    return value


def _list(value: Any, what: str, cap: int) -> list[Any]:
    if type(value) is not list or len(value) > cap:
        raise ProtocolError(f"{what}: not a list of at most {cap} items")
    return value


def _text(value: Any, what: str, cap: int) -> str:
    """A string, cut to ``cap`` characters, with lone surrogates made printable."""
    if type(value) is not str:
        raise ProtocolError(f"{what}: not a string")
    text: str = value[:cap]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _int(value: Any, what: str, low: int = 0, high: int = MAX_LINE) -> int:
    if type(value) is not int or not low <= value <= high:
        raise ProtocolError(f"{what}: not an integer from {low} to {high}")
    return value


def _only(data: dict[str, Any], allowed: frozenset[str], what: str) -> None:
    if not data.keys() <= allowed:
        raise ProtocolError(f"{what}: unexpected fields")


def _check_nonce(data: dict[str, Any], nonce: str) -> None:
    sent = data.get("nonce")
    if type(sent) is not str or not hmac.compare_digest(sent.encode("utf-8", "replace"), nonce.encode()):
        raise ForgedMessage("a message without the request's nonce")


def printed_from(data: Any) -> Printed:
    """What was printed; a missing record means nothing was."""
    if data is None:
        return _NOTHING_PRINTED
    if type(data) is dict and len(data) == 2 and data.get("text") == "" and type(data.get("dropped")) is int:
        if data["dropped"] == 0:  # what the harness sends after most calls: read without a call a field
            return _NOTHING_PRINTED
    record = _dict(data, "printed")
    _only(record, frozenset({"text", "dropped"}), "printed")
    return Printed(
        _text(record.get("text", ""), "printed text", MAX_PRINTED),
        _int(record.get("dropped", 0), "printed dropped", 0, 2**62),
    )


def _frame_from(data: Any) -> Line:
    raw = _dict(data, "frame")
    _only(raw, frozenset({"line", "function", "code", "repeats", "column"}), "frame")
    return Line(
        line=_int(raw.get("line", 0), "frame line"),
        function=_text(raw.get("function", "?"), "frame function", MAX_NAME),
        code=_text(raw.get("code", ""), "frame code", MAX_NAME),
        repeats=_int(raw.get("repeats", 1), "frame repeats", 1, 2**62),
        column=_int(raw.get("column", 0), "frame column"),
    )


def exception_from(data: Any) -> StudentException:
    """An exception's facts: type name, message and the student's frames."""
    raw = _dict(data, "error")
    _only(raw, frozenset({"type", "message", "frames"}), "error")
    return StudentException(
        type_name=_text(raw.get("type", "Exception"), "error type", MAX_NAME),
        message=_text(raw.get("message", ""), "error message", MAX_TEXT),
        frames=tuple(_frame_from(f) for f in _list(raw.get("frames", []), "frames", MAX_FRAMES)),
    )


def functions_from(data: Any) -> dict[str, FunctionInfo]:
    """The child's table of the functions a submission defines, checked field by field."""
    raw = _dict(data, "functions")
    if len(raw) > MAX_FUNCTIONS:
        raise ProtocolError("functions: too many")
    table: dict[str, FunctionInfo] = {}
    for name, info in raw.items():
        entry = _dict(info, "function entry")
        _only(entry, frozenset({"params", "min", "max", "is_function"}), "function entry")
        params = tuple(_text(p, "param", MAX_NAME) for p in _list(entry.get("params"), "params", MAX_PARAMS))
        high = entry.get("max")
        is_function = entry.get("is_function", False)
        if type(is_function) is not bool:
            raise ProtocolError("is_function: not a boolean")
        table[_text(name, "function name", MAX_NAME)] = FunctionInfo(
            params,
            _int(entry.get("min"), "min arity", 0, MAX_PARAMS),
            None if high is None else _int(high, "max arity", 0, MAX_PARAMS),
            is_function,
        )
    return table


def attempts_from(data: Any) -> tuple[Tampering, ...]:
    """What the harness's guard saw student code try (see :mod:`.guard`)."""
    if data is None or (type(data) is list and not data):
        return ()
    found = []
    for item in _list(data, "integrity", MAX_FINDINGS):
        raw = _dict(item, "integrity item")
        _only(raw, frozenset({"event", "detail"}), "integrity item")
        event = _text(raw.get("event"), "event", MAX_NAME)
        found.append(Tampering(event, _text(raw.get("detail", ""), "detail", MAX_NAME)))
    return tuple(found)


def confinement_from(data: Any) -> Confinement | None:
    """The harness's account of the limits it applied (None from an older harness)."""
    if data is None:
        return None
    raw = _dict(data, "sandbox")
    _only(raw, frozenset({"uid", "applied", "missing"}), "sandbox")
    return Confinement(
        uid=_int(raw.get("uid", -1), "uid", -1, 2**32),
        applied=tuple(_text(n, "limit", MAX_NAME) for n in _list(raw.get("applied", []), "applied", 20)),
        missing=tuple(_text(n, "limit", MAX_NAME) for n in _list(raw.get("missing", []), "missing", 20)),
    )


def _decoded(data: Any) -> Any:
    try:
        return wire.decode(data)
    except (wire.WireError, TypeError, ValueError, RecursionError) as error:
        raise ProtocolError(f"a value that is not tagged data: {error}") from None


def _all_decoded(data: list[Any]) -> tuple[Any, ...]:
    try:
        return tuple([wire.decode(item) for item in data])
    except (wire.WireError, TypeError, ValueError, RecursionError) as error:
        raise ProtocolError(f"a value that is not tagged data: {error}") from None


# -- whole messages --------------------------------------------------------------------------

_READY_FIELDS = frozenset(
    {"nonce", "ready", "functions", "printed", "error", "integrity", "sandbox", "setup_error"}
    | {"cell_errors", "cells_failed"}
)
_REPLY_FIELDS = frozenset({"nonce", "id", "ok", "result", "args_after", "printed", "error", "integrity"})


def cell_error_from(data: Any) -> CellError:
    """One cell that stopped: its index among the cells sent, and its error."""
    raw = _dict(data, "cell error")
    _only(raw, frozenset({"cell", "error"}), "cell error")
    return CellError(_int(raw.get("cell"), "cell", 0, MAX_CELLS), exception_from(raw.get("error")))


def read_ready(message: Any, nonce: str) -> LoadOutcome:
    """The child's first message: the submission loaded (its functions) or not (its error).

    Raises:
        SandboxFailure: the harness could not confine itself (a fault of this machine).
        ForgedMessage: the nonce is wrong (student code wrote this message).
        ProtocolError: anything else is malformed.
    """
    data = _dict(message, "ready message")
    _check_nonce(data, nonce)
    _only(data, _READY_FIELDS, "ready message")
    if "setup_error" in data:
        # Only the harness knows the nonce, and it sends this before any student code runs.
        raise SandboxFailure(_text(data["setup_error"], "setup error", MAX_TEXT))
    printed = printed_from(data.get("printed"))
    attempts = attempts_from(data.get("integrity"))
    confinement = confinement_from(data.get("sandbox"))
    ready = data.get("ready")
    if ready is True:
        functions = functions_from(data.get("functions"))
        cell_errors = tuple(
            cell_error_from(e) for e in _list(data.get("cell_errors", []), "cell errors", MAX_CELL_ERRORS)
        )
        failed = _int(data.get("cells_failed", 0), "cells failed", 0, MAX_CELLS)
        return LoadOutcome(
            "ready",
            functions=functions,
            printed=printed,
            attempts=attempts,
            confinement=confinement,
            cell_errors=cell_errors,
            cells_failed=max(failed, len(cell_errors)),
        )
    if ready is False:
        error = exception_from(data.get("error"))
        return LoadOutcome(
            "raised", printed=printed, exception=error, attempts=attempts, confinement=confinement
        )
    raise ProtocolError("ready message: no verdict")


def read_reply(message: Any, call_id: int, nonce: str) -> CallOutcome:
    """The child's answer to request ``call_id``.

    Raises:
        ForgedMessage: the nonce is wrong (student code wrote this message).
        ProtocolError: anything else is malformed, including the wrong id.
    """
    data = _dict(message, "reply")
    _check_nonce(data, nonce)
    _only(data, _REPLY_FIELDS, "reply")
    if data.get("id") != call_id or type(data.get("id")) is not int:
        raise ProtocolError("reply does not answer the request")
    ok = data.get("ok")
    if type(ok) is not bool:
        raise ProtocolError("reply: no verdict")
    printed = printed_from(data.get("printed"))
    attempts = attempts_from(data.get("integrity"))
    if not ok:
        exception = exception_from(data.get("error"))
        if exception.type_name == "MissingFunction" and not exception.frames:
            return CallOutcome("missing", printed=printed, attempts=attempts)
        return CallOutcome("raised", printed=printed, exception=exception, attempts=attempts)
    if "result" not in data:
        raise ProtocolError("reply lacks a result")
    result = _decoded(data["result"])
    args_after = _all_decoded(_list(data.get("args_after"), "args_after", MAX_PARAMS))
    return CallOutcome("returned", result=result, args_after=args_after, printed=printed, attempts=attempts)
