"""The tagged encoding keeps what plain JSON would lose, and trusts nothing it reads."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from menace_course.checking.compare import same
from menace_course.sandbox import wire

plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.integers() | st.text(max_size=3), inner, max_size=3)
        | st.frozensets(st.integers(), max_size=3)
    ),
    max_leaves=20,
)


@given(plain)
def test_plain_values_come_back_with_exactly_their_types(value):
    back = wire.decode(wire.loads(wire.dumps(wire.encode(value))))
    assert same(back, value)


@given(plain)
def test_the_c_encoder_and_the_hand_written_writer_write_the_same_line(value):
    # The child writes with json's C encoder where the interpreter has one, else by hand.
    message = {"id": 1, "ok": True, "result": wire.encode(value), "printed": {"text": "é\n", "dropped": 0}}
    by_hand: list[str] = []
    wire._write(message, by_hand)
    assert wire._encoder is not None  # CPython 3.11 to 3.13 all have it
    assert wire.dumps(message) == ("".join(by_hand) + "\n").encode()


def test_a_bare_nan_or_a_value_that_is_not_plain_data_is_never_written():
    for value in (math.nan, math.inf, object(), {"a": {1, 2}}):
        with pytest.raises((ValueError, TypeError)):
            wire.dumps({"result": value})


def test_a_tuple_stays_a_tuple_and_int_keys_stay_ints():
    back = wire.decode(wire.loads(wire.dumps(wire.encode({1: (2, 3)}))))
    assert back == {1: (2, 3)} and type(back[1]) is tuple


def test_special_floats_cross_as_tags():
    back = wire.decode(wire.encode([math.inf, -math.inf]))
    assert back == [math.inf, -math.inf]
    assert math.isnan(wire.decode(wire.encode(math.nan)))


def test_an_object_with_a_lying_eq_arrives_opaque_and_equals_nothing():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    back = wire.decode(wire.encode(AlwaysEqual()))
    assert isinstance(back, wire.Opaque) and back.type_name == "AlwaysEqual"
    assert back != [4, 4, 0, 0, 7, 0, 0, 0, 0]
    assert not same(back, [1])


def test_a_list_subclass_is_not_a_list():
    class Sneaky(list):
        pass

    back = wire.decode(wire.encode(Sneaky([1, 2])))
    assert isinstance(back, wire.Opaque) and back.type_name == "Sneaky"


def test_huge_integers_are_described_not_sent():
    back = wire.decode(wire.encode(-(10**5000)))
    assert isinstance(back, wire.Opaque) and repr(back) == "<int, |n| ≈ 10**5000>"  # no words to translate


def test_a_self_containing_list_stops_at_the_depth_limit():
    loop: list = []
    loop.append(loop)
    encoded = wire.encode(loop)
    depth = 0
    while isinstance(encoded, list):
        encoded, depth = encoded[0], depth + 1
    assert depth == wire.MAX_DEPTH and encoded["$"] == "object"


@pytest.mark.parametrize(
    "message",
    [
        {"$": "nope"},
        {"$": "tuple"},
        {"$": "dict", "v": [[1]]},
        {"$": "float", "v": "1e999"},
        {"$": "set", "v": [[1]]},
    ],
)
def test_malformed_tags_are_rejected(message):
    with pytest.raises(wire.WireError):
        wire.decode(message)


def test_unreadable_lines_are_rejected():
    with pytest.raises(wire.WireError):
        wire.loads(b"[" * 100000)
    with pytest.raises(wire.WireError):
        wire.loads(b"{not json")


atoms = (
    st.none()
    | st.booleans()
    | st.text(max_size=3)
    | st.integers()
    | st.sampled_from([2**3330 - 1, 2**3330, -(2**3330) + 1, -(2**3330), 2**4000, 0.5, math.inf])
)


@given(st.lists(atoms, max_size=6))
def test_a_list_of_atoms_is_encoded_as_item_by_item(value):
    # A list of strings, booleans, None and integers short of the cap is copied whole; any
    # other list goes item by item: either way the same data, never the list itself.
    encoded = wire.encode(value)
    assert encoded == [wire.encode(item, 1) for item in value]
    assert [type(item) for item in encoded] == [type(wire.encode(item, 1)) for item in value]
    assert encoded is not value


@given(st.lists(atoms, max_size=6))
def test_a_list_of_atoms_is_decoded_as_item_by_item(value):
    data = wire.loads(wire.dumps([wire.encode(item) for item in value]))
    decoded = wire.decode(data)
    one_by_one = [wire.decode(item, 1) for item in data]
    assert type(decoded) is list and len(decoded) == len(one_by_one)
    for got, expected in zip(decoded, one_by_one, strict=True):
        if isinstance(expected, wire.Opaque):  # equal to nothing but itself: compare what it shows
            assert isinstance(got, wire.Opaque) and repr(got) == repr(expected)
        else:
            assert same(got, expected)


def test_a_huge_integer_in_a_list_of_numbers_is_still_described_not_sent():
    assert wire.encode([1, 2**3330 - 1])[1] == 2**3330 - 1
    assert wire.encode([1, 2**3330])[1] == {"$": "bigint", "digits": wire._count_digits(2**3330)}
    assert wire.encode([-(2**3330), 1])[0]["$"] == "bigint"


@pytest.mark.parametrize(
    "line", [b'{"a": 1}', '{"é": 1}'.encode(), b"{", b"{\x00\x00\x00", "{}".encode("utf-16-le")]
)
def test_a_line_is_read_with_the_encoding_json_would_detect(line):
    import json

    try:
        expected = ("value", json.loads(line))
    except ValueError:
        expected = ("refused", None)
    try:
        got = ("value", wire.loads(line))
    except wire.WireError:
        got = ("refused", None)
    assert got == expected
