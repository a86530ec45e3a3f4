"""Equality in the grader is type-strict: a lookalike is not the answer."""

from menace_course.checking.compare import first_difference, same


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
