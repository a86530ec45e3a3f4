"""Hidden tests for after_game. Students see each test's first docstring line and its hint.

Every call is checked part by part, so that the hint a student reads names the part that
is wrong: first the kind of value (a list of 9 whole numbers), then the drawn square
(the rule the test is about), then every other square. A test of something every function
has for free (it leaves the list alone, no count is below 0) checks that first, with its
own hint, and then the value too: a function that does nothing earns nothing.
"""

from hypothesis import example, given
from hypothesis import strategies as st

from menace_course import expect, expect_equal, expect_unchanged, hint, reference

after_game = reference("after_game")

#: Each test's verdict depends only on the answers its own calls get; no test keeps
#: anything for another (``menace validate`` proves it).
TESTS_SHARE_NO_STATE = True

RESULTS = ("win", "draw", "loss")
RULE = {"win": "win_adds_three", "draw": "draw_adds_one", "loss": "loss_takes_one"}
boxes = st.lists(st.integers(0, 6), min_size=9, max_size=9)
squares = st.integers(0, 8)
results = st.sampled_from(RESULTS)


def rule_for(beads, square, result):
    """The hint for the drawn square's count: the result's rule, at 0 beads as at any other count."""
    if beads[square] == 0 and result == "loss":
        return "floor_at_zero"
    if beads[square] == 0 and result == "draw":
        return "draw_on_an_empty_colour"
    return RULE[result]


def check(submission, beads, square, result, hint=None):
    """Call ``after_game(beads, square, result)`` and check what it gives back (see below)."""
    return check_value(submission.after_game(beads, square, result), beads, square, result, hint)


def check_value(got, beads, square, result, hint=None):
    """What after_game gave back must follow Michie's rule, part by part.

    ``hint`` is for the drawn square's count (the result's own rule by default).
    """
    expected = after_game(beads, square, result)
    if type(got) is not list:
        expect_equal(got, expected, hint="return_a_list")
    expect(
        len(got) == 9 and all(type(n) is int for n in got),
        "after_game must give back a list of 9 whole numbers",
        hint="return_a_list",
    )
    expect_equal(got[square], expected[square], hint=hint or rule_for(beads, square, result))
    expect_equal(got, expected, hint="only_the_drawn_square")
    return got


@hint("win_adds_three")
def test_win_on_a_side_square(submission):
    """A win adds 3 beads to the drawn square, wherever it is."""
    check(submission, [0, 1, 0, 1, 0, 1, 0, 1, 0], 7, "win")


@hint("win_adds_three")
def test_win_on_an_empty_colour(submission):
    """A win on a square with 0 beads gives it 3."""
    check(submission, [0, 0, 0, 0, 5, 0, 0, 0, 0], 8, "win")


@hint("draw_adds_one")
def test_draw_on_the_last_square(submission):
    """A draw adds 1 bead to the drawn square, even square 8."""
    check(submission, [1, 1, 1, 1, 1, 1, 1, 1, 1], 8, "draw")


@hint("draw_on_an_empty_colour")
def test_draw_on_an_empty_colour(submission):
    """A draw on a square with 0 beads gives it 1."""
    check(submission, [2, 0, 2, 0, 2, 0, 2, 0, 2], 3, "draw", hint="draw_on_an_empty_colour")


@hint("loss_takes_one")
def test_loss_takes_one_bead(submission):
    """A loss takes 1 bead from the drawn square."""
    check(submission, [0, 0, 2, 0, 9, 0, 0, 0, 0], 4, "loss")


@hint("floor_at_zero")
def test_loss_on_an_empty_colour_stays_at_zero(submission):
    """A loss on a square that has no beads left keeps it at 0."""
    check(submission, [3, 1, 3, 0, 3, 0, 3, 0, 3], 1, "loss")
    check(submission, [3, 0, 3, 0, 3, 0, 3, 0, 3], 1, "loss")


@hint("floor_at_zero")
def test_repeated_losses_empty_a_colour(submission):
    """Loss after loss takes a color down to 0 and no further."""
    beads = [2, 0, 0, 0, 1, 0, 0, 0, 0]
    for _ in range(4):
        beads = check(submission, beads, 0, "loss")
    expect_equal(beads, [0, 0, 0, 0, 1, 0, 0, 0, 0])


@hint("only_the_drawn_square")
def test_only_the_drawn_square_changes(submission):
    """Only the drawn square changes; every other color keeps its beads."""
    check(submission, [4, 3, 2, 1, 4, 3, 2, 1, 4], 2, "win")


@hint("copy_the_list")
def test_leaves_the_given_list_alone(submission):
    """Leaves the list it was given as it was, and gives back the right new list."""
    beads = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    got = submission.after_game(beads, 6, "win")
    expect_unchanged()
    check_value(got, beads, 6, "win")


@hint("after_game_rules")
@given(beads=boxes, square=squares, result=results)
@example(beads=[0] * 9, square=0, result="loss")
@example(beads=[6] * 9, square=8, result="win")
@example(beads=[0] * 9, square=5, result="draw")
def test_agrees_with_michies_rules_on_any_box(submission, beads, square, result):
    """Agrees with Michie's rules on many generated boxes, squares and results."""
    check(submission, beads, square, result, hint="after_game_rules")


@hint("floor_at_zero")
@given(beads=st.lists(st.integers(0, 2), min_size=9, max_size=9), square=squares)
@example(beads=[0, 0, 0, 0, 0, 0, 0, 0, 0], square=4)
@example(beads=[1, 1, 1, 1, 1, 1, 1, 1, 1], square=4)
def test_never_a_negative_count(submission, beads, square):
    """No loss takes a count below 0, whatever the box."""
    got = submission.after_game(beads, square, "loss")
    if type(got) is list:
        expect(all(type(n) is not int or n >= 0 for n in got), "a count went below 0")
    check_value(got, beads, square, "loss")


@hint("copy_the_list")
@given(beads=boxes, square=squares, result=results)
def test_never_changes_its_input(submission, beads, square, result):
    """Never changes the list it was given, whatever the game, and gives back the new one."""
    got = submission.after_game(beads, square, result)
    expect_unchanged()
    check_value(got, beads, square, result, hint="after_game_rules")
