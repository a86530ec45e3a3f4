"""Calls sent to the child before the test makes them: what one is, and how a batch is written.

A property test makes the same calls for every submission until it stops (tests are
oracle-free: :mod:`~menace_course.authoring.oracle`), so its calls are known before it runs
(:mod:`~menace_course.checking.plan` learns them from the course's reference). They go to
the child in one write; the child answers them one after another, and each of the test's
calls reads its own reply, with its own deadline, instead of making a round trip.

A call is recognised by its function and the exact bytes of its arguments as they would be
sent (:func:`~menace_course.sandbox.wire.argument_key`), so a sent call is used only for the
very request the test would have made at that point. Anything else (a test that stopped early, a call the plan
did not have) is a divergence: :class:`~menace_course.sandbox.child.Child` then starts the
child afresh and makes again, uncharged, the calls the tests really made, so the child is
where it would have been.

A planned call also carries the reply a correct answer gives (:class:`KnownReply`, made
from the reference's answer): a reply that is, byte for byte, that line under the call's
own id and nonce is exactly what :func:`~menace_course.sandbox.outcomes.read_reply` would
accept and read, so the grader takes its values from the plan instead of parsing it. Any
other reply (a different value, something printed, a note of the harness's) is read
strictly, as always.
"""

from __future__ import annotations

import marshal
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from menace_course.sandbox import wire
from menace_course.sandbox.outcomes import CallOutcome, ProtocolError, read_reply

#: The id and nonce :meth:`KnownReply.of` writes its sample reply under (any would do).
_SAMPLE_ID, _SAMPLE_NONCE = 1, "0" * 32


@dataclass(frozen=True)
class KnownReply:
    """The reply a call that returns what the reference returns gets, known before it comes.

    ``tail`` is the reply's line after its id and nonce, as the harness writes it
    (:func:`~menace_course.sandbox.wire.dumps`: nothing printed, nothing noticed) and the
    channel gives it (without the newline);
    ``values`` is ``marshal`` of the result and the arguments after the call, exactly as
    :func:`~menace_course.sandbox.outcomes.read_reply` reads them from that line.
    """

    tail: bytes
    values: bytes

    @classmethod
    def of(cls, result: Any, args_after: Sequence[Any]) -> KnownReply | None:
        """The reply for a call that returned ``result`` and left ``args_after``.

        None when it cannot be known by its bytes: a value that does not cross as plain
        data (an opaque object, a huge integer), which no two replies carry alike.
        """
        message = {
            "id": _SAMPLE_ID,
            "nonce": _SAMPLE_NONCE,
            "ok": True,
            "result": wire.encode(result),
            "args_after": [wire.encode(arg) for arg in args_after],
        }
        try:
            line = wire.dumps(message)
            read = read_reply(wire.loads(line), _SAMPLE_ID, _SAMPLE_NONCE)
            values = marshal.dumps((read.result, read.args_after), 2)
        except (ValueError, TypeError, ProtocolError):  # an Opaque is not marshalled, nor a huge integer
            return None
        head = wire.reply_head(_SAMPLE_ID, _SAMPLE_NONCE)
        if not (line.startswith(head) and line.endswith(b"\n")):
            return None
        return cls(line[len(head) : -1], values)

    def line(self, call_id: int, nonce: str) -> bytes:
        """The line (without its newline) the harness writes for this reply to request ``call_id``."""
        return wire.reply_head(call_id, nonce) + self.tail

    def outcome(self) -> CallOutcome:
        """What reading the line gives: a call that returned, with fresh copies of the values."""
        result, args_after = marshal.loads(self.values)
        return CallOutcome("returned", result=result, args_after=args_after)


@dataclass(frozen=True)
class PlannedCall:
    """A call a test will make: the function, its arguments, and whether it is made again.

    ``then_again``: the test calls the same function again on the objects the call left
    (``expect_unchanged``) right after it, so the repeat is asked for in the same request.
    """

    function: str
    args: tuple[Any, ...]
    key: bytes  #: :func:`~menace_course.sandbox.wire.argument_key` of ``list(args)``
    then_again: bool = False
    #: the reply of a correct answer to the call, and to its repeat (None: not known)
    reply: KnownReply | None = None
    again_reply: KnownReply | None = None

    @property
    def answers_known(self) -> bool:
        """True when the reply a correct answer gives is known for the call and its repeat."""
        return self.reply is not None and (not self.then_again or self.again_reply is not None)

    @classmethod
    def of(
        cls, function: str, args: list[Any], then_again: bool = False, reply: KnownReply | None = None
    ) -> PlannedCall:
        """The planned call of ``function(*args)`` (``args`` are copied by their key)."""
        key = wire.argument_key(args)
        return cls(function, tuple(marshal.loads(key)), key, then_again, reply)


@dataclass(frozen=True)
class SentCall:
    """A planned call whose request is written (or queued) to the child, waiting for its reply."""

    call: PlannedCall  #: what was asked for (its function, arguments' key, known replies)
    call_id: int
    nonce: str
    then: tuple[int, str] | None  #: the repeat's id and nonce, when it was asked for too


class Accounts(NamedTuple):
    """What a reply not read as known may change in a child's accounts, besides time and calls.

    Kept when :meth:`~menace_course.sandbox.child.Child.read_known` begins, so that replies
    read ahead which the test then does not take can be undone (the time charged and the
    calls answered before each reply are in its :class:`ReadAhead`).
    """

    requests: int  #: requests written
    forged: int  #: messages without the nonce
    attempts: int  #: how many tamperings the harness had noticed
    dead_functions: frozenset[str]
    crashes: tuple[tuple[str, int], ...]


class ReadAhead(NamedTuple):
    """A reply read before the test asked for it, waiting for the test's own call."""

    function: str | None  #: the function called (None: the repeat of the call before)
    key: bytes  #: the arguments' :func:`~menace_course.sandbox.wire.argument_key` (b"" for a repeat)
    outcome: CallOutcome  #: what the call gives the test, as read
    spent: float  #: the seconds charged before it was read
    answered: int  #: the calls the child had answered before it (since it last started fresh)


def pack_batch(calls: Sequence[PlannedCall], last_id: int) -> tuple[bytes, list[SentCall]]:
    """The requests for ``calls``, numbered after ``last_id``, each with fresh nonces.

    Returns the bytes to write and what each request is, in order. The nonces are cut from
    one draw of the system's random source (16 bytes each, as
    :func:`secrets.token_hex` gives one): a read of it per batch, not per request.
    """
    chunks = []
    sent = []
    next_id = last_id
    drawn = secrets.token_hex(16 * (len(calls) + sum(1 for call in calls if call.then_again)))
    nonces = (drawn[start : start + 32] for start in range(0, len(drawn), 32))
    for call in calls:
        next_id += 1
        call_id, nonce = next_id, next(nonces)
        message: dict[str, Any] = {"id": call_id, "nonce": nonce}
        message.update(fn=call.function, args=list(call.args))
        then = None
        if call.then_again:
            next_id += 1
            then = (next_id, next(nonces))
            message["then"] = {"id": then[0], "nonce": then[1]}
        chunks.append(wire.pack(message))
        sent.append(SentCall(call, call_id, nonce, then))
    return b"".join(chunks), sent
