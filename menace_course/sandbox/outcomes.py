"""What the sandboxed child says, as typed facts: outcomes of loading and of calls.

The child's replies are untrusted JSON; :func:`printed_from` and :func:`exception_from`
read them strictly (a malformed part raises :class:`ProtocolError`, which the worker
treats as a crash). Nothing here runs or imports student code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Frame:
    """One line of the student's own code in a traceback."""

    line: int
    function: str
    code: str
    repeats: int = 1
    column: int = 0


@dataclass(frozen=True)
class StudentException:
    """An exception raised by student code, as plain facts."""

    type_name: str
    message: str
    frames: tuple[Frame, ...] = ()


@dataclass(frozen=True)
class Printed:
    """What student code printed during one call (capped)."""

    text: str = ""
    dropped: int = 0


@dataclass(frozen=True)
class CallOutcome:
    """What one call did.

    ``status`` is ``returned``, ``raised``, ``timeout``, ``crashed``, ``missing``,
    ``budget`` (the submission's time budget ran out) or ``dead`` (not called, because
    the function timed out or crashed too often before).
    """

    status: str
    result: Any = None
    args_after: tuple[Any, ...] = ()
    printed: Printed = field(default_factory=Printed)
    exception: StudentException | None = None
    exit_code: int | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class LoadOutcome:
    """What happened when the child imported the submission."""

    status: str  #: ``ready``, ``raised``, ``timeout`` or ``crashed``
    functions: dict[str, dict[str, Any]] = field(default_factory=dict)
    printed: Printed = field(default_factory=Printed)
    exception: StudentException | None = None
    exit_code: int | None = None


class SandboxFailure(Exception):
    """The sandbox could not start the harness at all: a problem of this machine, not the file."""


class ProtocolError(Exception):
    """The child's reply broke the protocol (wrong id, shape, size): treated as a crash."""


def printed_from(data: Any) -> Printed:
    if not isinstance(data, dict):
        return Printed()
    text, dropped = data.get("text"), data.get("dropped")
    return Printed(text if isinstance(text, str) else "", dropped if isinstance(dropped, int) else 0)


def exception_from(data: Any) -> StudentException:
    if not isinstance(data, dict):
        raise ProtocolError("bad error")
    frames = []
    for raw in data.get("frames") or []:
        if not isinstance(raw, dict):
            raise ProtocolError("bad frame")
        frames.append(
            Frame(
                line=int(raw.get("line") or 0),
                function=str(raw.get("function", "?"))[:100],
                code=str(raw.get("code", ""))[:200],
                repeats=int(raw.get("repeats") or 1),
                column=int(raw.get("column") or 0),
            )
        )
    return StudentException(
        type_name=str(data.get("type", "Exception"))[:100],
        message=str(data.get("message", ""))[:500],
        frames=tuple(frames),
    )


def functions_from(data: Any) -> dict[str, dict[str, Any]]:
    """The child's table of the functions a submission defines, checked field by field."""
    if not isinstance(data, dict) or len(data) > 10_000:
        raise ProtocolError("bad functions")
    table: dict[str, dict[str, Any]] = {}
    for name, info in data.items():
        if not isinstance(name, str) or not isinstance(info, dict):
            raise ProtocolError("bad function entry")
        params, low, high = info.get("params"), info.get("min"), info.get("max")
        if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
            raise ProtocolError("bad params")
        if type(low) is not int or not (high is None or type(high) is int):
            raise ProtocolError("bad arity")
        table[name[:200]] = {
            "params": [p[:100] for p in params[:50]],
            "min": low,
            "max": high,
            "is_function": info.get("is_function") is True,
        }
    return table
