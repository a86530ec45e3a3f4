"""Equality in the grader is type-strict: a lookalike is not the answer."""

from hypothesis import given, settings
from hypothesis import strategies as st

from menace_course.checking.compare import clone, first_difference, same


def test_list_and_tuple_differ():
    assert not same((1, 2), [1, 2])


def test_bool_int_and_float_differ():
    assert not same(True, 1)
    assert not same(1.0, 1)
    assert same(3, 3)


def test_nested_types_are_checked_all_the_way_down():
    assert same({0: [1, 2]}, {0: [1, 2]})
    assert not same({0: [1, (2,)]}, {0: [1, [2]]})
    assert not same({True: 1}, {1: 1})


def test_first_difference_names_the_position_or_the_length():
    assert first_difference([4, 4, 5], [4, 4, 7]) == "position 2"
    assert first_difference([1, 2], [1, 2, 3]) == "length: 2 items instead of 3"
    assert first_difference(None, [1]) is None


def test_clone_copies_lists_and_shares_only_what_cannot_change():
    beads = [4, 4, 0, 0, 4, 0, 0, 0, 0]
    args = (beads, 4, "win")
    copied = clone(args)
    assert same(copied, args) and copied[0] is not beads
    assert clone(beads) == beads and clone(beads) is not beads
    frozen = (1, "a", None, 2.5)
    assert clone(frozen) is frozen  # as copy.deepcopy: a tuple of atoms cannot change
    nested = [[1, 2], (3, [4])]
    copy = clone(nested)
    assert same(copy, nested) and copy[0] is not nested[0] and copy[1][1] is not nested[1][1]
    mixed = [1, True, "x", b"y", None, 1.5]
    assert same(clone(mixed), mixed) and clone(mixed) is not mixed


def _same_item_by_item(got: object, expected: object) -> bool:
    """The definition of ``same`` without its shortcut for flat lists: one call per item."""
    if type(got) is not type(expected):
        return False
    if isinstance(expected, list | tuple):
        assert isinstance(got, list | tuple)
        return len(got) == len(expected) and all(map(_same_item_by_item, got, expected))
    return same(got, expected)


_ATOMS = st.one_of(
    st.integers(-3, 3),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "x"]),
    st.sampled_from([b"", b"y"]),
    st.floats(allow_nan=True, allow_infinity=True, width=16),
)
_VALUES = st.recursive(
    _ATOMS, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner), max_leaves=10
)


@settings(max_examples=400, deadline=None)
@given(_VALUES, _VALUES)
def test_flat_lists_compare_as_item_by_item_would(got: object, expected: object) -> None:
    assert same(got, expected) == _same_item_by_item(got, expected)
    assert same(expected, expected) == _same_item_by_item(expected, expected)  # nan is not itself


def test_a_flat_list_is_told_apart_by_an_item_of_another_type_or_a_nan() -> None:
    assert not same([1, 2, True], [1, 2, 1])
    assert not same([0, None], [0, 0])
    nan = float("nan")
    assert not same([nan], [nan])  # though [nan] == [nan] is True in Python (the same object)
    assert same([4, 4, 0, 0, 4, 0, 0, 0, 0], [4, 4, 0, 0, 4, 0, 0, 0, 0])
