"""Hidden tests for after_game. Students see each test's first docstring line and its hint."""

from hypothesis import example, given
from hypothesis import strategies as st

from menace_course import expect, expect_equal, expect_unchanged, hint, reference

after_game = reference("after_game")

RESULTS = ("win", "draw", "loss")
boxes = st.lists(st.integers(0, 6), min_size=9, max_size=9)
squares = st.integers(0, 8)
results = st.sampled_from(RESULTS)


@hint("return_a_list")
def test_gives_back_a_list(submission):
    """Gives back a list of 9 numbers."""
    got = submission.after_game([2, 2, 2, 2, 2, 2, 2, 2, 2], 3, "draw")
    expect_equal(got, [2, 2, 2, 3, 2, 2, 2, 2, 2])


@hint("win_adds_three")
def test_win_on_a_side_square(submission):
    """A win adds 3 beads to the drawn square, wherever it is."""
    expect_equal(submission.after_game([0, 1, 0, 1, 0, 1, 0, 1, 0], 7, "win"), [0, 1, 0, 1, 0, 1, 0, 4, 0])


@hint("win_adds_three")
def test_win_on_an_empty_colour(submission):
    """A win on a square with 0 beads gives it 3."""
    expect_equal(submission.after_game([0, 0, 0, 0, 5, 0, 0, 0, 0], 8, "win"), [0, 0, 0, 0, 5, 0, 0, 0, 3])


@hint("draw_adds_one")
def test_draw_on_the_last_square(submission):
    """A draw adds 1 bead to the drawn square, even square 8."""
    expect_equal(submission.after_game([1, 1, 1, 1, 1, 1, 1, 1, 1], 8, "draw"), [1, 1, 1, 1, 1, 1, 1, 1, 2])


@hint("loss_takes_one")
def test_loss_takes_one_bead(submission):
    """A loss takes 1 bead from the drawn square."""
    expect_equal(submission.after_game([0, 0, 2, 0, 9, 0, 0, 0, 0], 4, "loss"), [0, 0, 2, 0, 8, 0, 0, 0, 0])


@hint("floor_at_zero")
def test_loss_on_an_empty_colour_stays_at_zero(submission):
    """A loss on a square that has no beads left keeps it at 0."""
    expect_equal(submission.after_game([3, 0, 3, 0, 3, 0, 3, 0, 3], 1, "loss"), [3, 0, 3, 0, 3, 0, 3, 0, 3])


@hint("floor_at_zero")
def test_repeated_losses_empty_a_colour(submission):
    """Loss after loss takes a colour down to 0 and no further."""
    beads = [2, 0, 0, 0, 1, 0, 0, 0, 0]
    for _ in range(4):
        beads = submission.after_game(beads, 0, "loss")
        expect(type(beads) is list, "after_game must give back a list each time", hint="return_a_list")
    expect_equal(beads, [0, 0, 0, 0, 1, 0, 0, 0, 0])


@hint("only_the_drawn_square")
def test_only_the_drawn_square_changes(submission):
    """Only the drawn square changes; every other colour keeps its beads."""
    expect_equal(submission.after_game([4, 3, 2, 1, 4, 3, 2, 1, 4], 2, "win"), [4, 3, 5, 1, 4, 3, 2, 1, 4])


@hint("copy_the_list")
def test_leaves_the_given_list_alone(submission):
    """The list it was given is the same after the call."""
    submission.after_game([1, 2, 3, 4, 5, 6, 7, 8, 9], 6, "win")
    expect_unchanged()


@hint("after_game_rules")
@given(beads=boxes, square=squares, result=results)
@example(beads=[0] * 9, square=0, result="loss")
@example(beads=[6] * 9, square=8, result="win")
def test_agrees_with_michies_rules_on_any_box(submission, beads, square, result):
    """Agrees with Michie's rules on many generated boxes, squares and results."""
    expected = after_game(beads, square, result)
    expect_equal(submission.after_game(beads, square, result), expected)


@hint("floor_at_zero")
@given(beads=boxes, square=squares, result=results)
@example(beads=[0, 0, 0, 0, 0, 0, 0, 0, 0], square=4, result="loss")
def test_never_a_negative_count(submission, beads, square, result):
    """No bead count is ever below 0."""
    got = submission.after_game(beads, square, result)
    expect(type(got) is list and len(got) == 9, "after_game must give back a list of 9 counts")
    expect(all(type(n) is int and n >= 0 for n in got), "a count went below 0")


@hint("copy_the_list")
@given(beads=boxes, square=squares, result=results)
def test_never_changes_its_input(submission, beads, square, result):
    """Never changes the list it was given, whatever the game."""
    submission.after_game(beads, square, result)
    expect_unchanged()
