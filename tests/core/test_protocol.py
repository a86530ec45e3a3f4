"""Whatever a child sends, the grader reads it strictly and never raises anything but ProtocolError.

Student code shares the child's interpreter and can write any bytes to the reply pipe, so
every message is fuzzed here: any JSON value, anywhere in a ready message or a reply,
either gives a typed outcome or a ProtocolError (which the worker turns into a crash of
the submission). Nothing else may escape: not OverflowError from ``Infinity``, not
ValueError from a 5,000-digit number, not TypeError from a list where a string belongs.
"""

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from menace_course.sandbox import wire
from menace_course.sandbox.outcomes import ForgedMessage, ProtocolError, read_ready, read_reply

NONCE = "5eed" * 8

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**300, max_value=10**310)
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["$", "tuple", "dict", "set", "frozenset", "float", "bigint", "object", "\ud800"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=25,
)
field_names = st.sampled_from(
    [
        *("nonce", "id", "ok", "result", "args_after", "printed", "error", "integrity", "ready"),
        *("functions", "text", "dropped", "type", "message", "frames", "line", "function", "code"),
        *("repeats", "column", "params", "min", "max", "is_function", "event", "detail", "$", "v"),
        *("digits", "repr"),
    ]
)


def shaped_like_a_message(values: st.SearchStrategy) -> st.SearchStrategy:
    """Objects whose keys are the protocol's own, nested, so the readers go deep."""
    nested = st.recursive(
        values,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(field_names, inner, max_size=5),
        max_leaves=30,
    )
    return st.dictionaries(field_names, nested, max_size=8).map(lambda d: {**d, "nonce": NONCE})


def read_both(message: object) -> None:
    for reader in (lambda m: read_ready(m, NONCE), lambda m: read_reply(m, 1, NONCE)):
        try:
            reader(message)
        except ProtocolError:
            pass


@settings(max_examples=150, suppress_health_check=list(HealthCheck))
@given(shaped_like_a_message(json_values))
def test_any_message_gives_an_outcome_or_a_protocol_error(message):
    read_both(message)


@settings(max_examples=100, suppress_health_check=list(HealthCheck))
@given(json_values)
def test_any_json_value_at_all_gives_an_outcome_or_a_protocol_error(message):
    read_both(message)


@settings(max_examples=100, suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_any_line_of_bytes_is_either_parsed_or_refused_as_unreadable(line):
    try:
        read_both(wire.loads(line))
    except wire.WireError:
        pass


def test_a_forged_ready_message_with_an_infinite_line_number_is_a_protocol_error():
    line = b'{"nonce": "%s", "ready": false, "error": {"type": "X", "frames": [{"line": Infinity}]}}'
    with pytest.raises(wire.WireError):
        wire.loads(line % NONCE.encode())
    with pytest.raises(ProtocolError):
        read_ready({"nonce": NONCE, "ready": False, "error": {"frames": [{"line": math.inf}]}}, NONCE)


def test_a_number_too_long_to_read_is_refused():
    with pytest.raises(wire.WireError):
        wire.loads(b'{"id": ' + b"9" * 5000 + b"}")


def test_a_reply_without_the_nonce_is_forged_even_with_the_right_id():
    reply = {"id": 1, "ok": True, "result": [1], "args_after": [], "printed": {"text": "", "dropped": 0}}
    with pytest.raises(ForgedMessage):
        read_reply(reply, 1, NONCE)
    with pytest.raises(ForgedMessage):
        read_reply({**reply, "nonce": "0" * 32}, 1, NONCE)
    assert read_reply({**reply, "nonce": NONCE}, 1, NONCE).result == [1]


def test_a_reply_to_another_request_is_refused():
    reply = {"nonce": NONCE, "id": 2, "ok": True, "result": 1, "args_after": []}
    with pytest.raises(ProtocolError):
        read_reply(reply, 1, NONCE)
    with pytest.raises(ProtocolError):
        read_reply({**reply, "id": True}, True, NONCE)


def test_lone_surrogates_in_text_are_made_printable():
    ready = read_ready(
        {"nonce": NONCE, "ready": False, "error": {"type": "E\ud800", "message": "\udcff", "frames": []}},
        NONCE,
    )
    assert ready.exception is not None
    ready.exception.type_name.encode("utf-8")
    ready.exception.message.encode("utf-8")


def test_a_reply_that_printed_nothing_is_read_as_strictly_as_before():
    reply = {"nonce": NONCE, "id": 1, "ok": True, "result": 3, "args_after": [[1, 2]]}
    plain = read_reply(reply, 1, NONCE)  # no printed, no integrity: nothing printed, nothing seen
    assert plain.printed.text == "" and plain.printed.dropped == 0 and plain.attempts == ()
    assert plain.args_after == ([1, 2],)
    empty = read_reply({**reply, "printed": {"text": "", "dropped": 0}, "integrity": []}, 1, NONCE)
    assert empty == plain
    said = read_reply({**reply, "printed": {"text": "hi", "dropped": 2}}, 1, NONCE)
    assert (said.printed.text, said.printed.dropped) == ("hi", 2)
    for printed in (
        {"text": "", "dropped": False},  # a boolean is not a count
        {"text": "", "dropped": -1},
        {"text": "", "dropped": 0, "more": 1},
        {"text": "", "dropped": 0.0},
        {"text": [], "dropped": 0},
        {"dropped": 0, "spare": ""},
        [],
    ):
        with pytest.raises(ProtocolError):
            read_reply({**reply, "printed": printed}, 1, NONCE)
    for integrity in ({}, "", [[]], [{"event": 1}]):
        with pytest.raises(ProtocolError):
            read_reply({**reply, "integrity": integrity}, 1, NONCE)
    with pytest.raises(ProtocolError):
        read_reply({**reply, "unexpected": 1}, 1, NONCE)
    with pytest.raises(ForgedMessage):
        read_reply({**reply, "nonce": NONCE[:-1] + "0"}, 1, NONCE)
