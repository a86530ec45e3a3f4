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
"""

from __future__ import annotations

import marshal
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from menace_course.sandbox import wire


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

    @classmethod
    def of(cls, function: str, args: list[Any], then_again: bool = False) -> PlannedCall:
        """The planned call of ``function(*args)`` (``args`` are copied by their key)."""
        key = wire.argument_key(args)
        return cls(function, tuple(marshal.loads(key)), key, then_again)


@dataclass(frozen=True)
class SentCall:
    """A planned call whose request is written (or queued) to the child, waiting for its reply."""

    function: str
    key: bytes
    arity: int
    call_id: int
    nonce: str
    then: tuple[int, str] | None  #: the repeat's id and nonce, when it was asked for too


def pack_batch(calls: Sequence[PlannedCall], last_id: int) -> tuple[bytes, list[SentCall]]:
    """The requests for ``calls``, numbered after ``last_id``, each with fresh nonces.

    Returns the bytes to write and what each request is, in order.
    """
    chunks = []
    sent = []
    next_id = last_id
    for call in calls:
        next_id += 1
        call_id, nonce = next_id, secrets.token_hex(16)
        message: dict[str, Any] = {"id": call_id, "nonce": nonce}
        message.update(fn=call.function, args=list(call.args))
        then = None
        if call.then_again:
            next_id += 1
            then = (next_id, secrets.token_hex(16))
            message["then"] = {"id": then[0], "nonce": then[1]}
        chunks.append(wire.pack(message))
        sent.append(SentCall(call.function, call.key, len(call.args), call_id, nonce, then))
    return b"".join(chunks), sent
