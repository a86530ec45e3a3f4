"""Equality in the grader is type-strict: a lookalike is not the answer."""

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
