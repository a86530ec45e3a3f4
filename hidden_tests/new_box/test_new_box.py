"""Hidden tests for new_box. Students see each test's first docstring line and its hint.

The positions are the 304 names MENACE (X) has boxes for and the names O needs boxes for
(O to move with a choice), found here by the lesson's own search (with
menace_course.lesson.noughts); expected answers come from the reference. Almost every
test has positions of both players: the lesson's own new_box, which knows only X's
boxes, earns a small part of the points.

Every box is checked part by part, always in the same order, so that the hint names the
first part that is wrong: the kind of value (a dict of squares to beads), colors only on
empty squares, one color for each different move, the first square of each move, Michie's
number of beads, the squares in order. A box that a second call does not give again means
something is kept between calls: the last test calls twice for every position, whatever the
first call gave back. No test calls again because an answer was wrong.
"""

from hypothesis import example, given
from hypothesis import strategies as st

from menace_course import expect, expect_equal, hint, reference
from menace_course.lesson.noughts import name, winner

reference_new_box = reference("new_box")

#: Each test's verdict depends only on the answers its own calls get; no test keeps
#: anything for another (``menace validate`` proves it).
TESTS_SHARE_NO_STATE = True
BEADS = {9: 4, 7: 3, 5: 2, 3: 1, 8: 4, 6: 3, 4: 2, 2: 1}  # by empty squares: the player's own move


def _box_names(player="X"):
    """The names of every position where ``player`` is to move with a choice: Step 1's search."""
    found, seen = set(), set()

    def visit(board):
        if winner(board) or " " not in board:
            return
        key = name(board)[0]
        if key in seen:
            return
        seen.add(key)
        marks = 9 - board.count(" ")
        me = "X" if marks % 2 == 0 else "O"
        if me == player and marks < 8:
            found.add(key)
        for i in range(9):
            if board[i] == " ":
                board[i] = me
                visit(board)
                board[i] = " "

    visit([" "] * 9)
    return sorted(found)


BOX_NAMES = _box_names()
O_BOX_NAMES = _box_names("O")
positions = st.sampled_from(BOX_NAMES) | st.sampled_from(O_BOX_NAMES)
o_positions = st.sampled_from(O_BOX_NAMES)


def box_of(submission, position):
    """The submission's box, checked to be a dict of int squares to int beads."""
    box = submission.new_box(position)
    expect(
        type(box) is dict and all(type(s) is int and type(n) is int for s, n in box.items()),
        "new_box must give back a dict of squares (int) to beads (int)",
        hint="box_is_a_dict",
    )
    return box


def move_name(position, square):
    """The name of the position after the player to move plays on ``square``."""
    after = list(position)
    after[square] = "X" if position.count(" ") % 2 == 1 else "O"
    return name(after)[0]


def check(submission, position):
    """``new_box(position)`` must be the lesson's box, part by part (see :func:`judge`)."""
    judge(box_of(submission, position), position)


def judge(box, position):
    """``box`` must be the lesson's box for ``position``, part by part (see the module's docstring).

    It makes no call: a test never calls again because an answer was wrong (a file that
    noticed the repeat would learn that its guess was wrong).
    """
    expected = reference_new_box(position)
    expect(
        all(0 <= s <= 8 and position[s] == " " for s in box),
        "a color is on a square that is not empty",
        hint="only_empty_squares",
    )
    moves = [move_name(position, s) for s in box]
    every_move = {move_name(position, s) for s in range(9) if position[s] == " "}
    expect(len(set(moves)) == len(moves), "two colors are the same move", hint="one_colour_per_move")
    expect(set(moves) == every_move, "a different move has no color", hint="one_colour_per_move")
    expect_equal(sorted(box), sorted(expected), hint="first_square_of_a_move")
    expect_equal(sorted(set(box.values())), [BEADS[position.count(" ")]], hint="michies_beads")
    expect_equal(list(box), sorted(box), hint="squares_in_order")
    expect_equal(box, expected, hint="new_box_rules")


@hint("box_is_a_dict")
def test_gives_back_a_dict_of_squares_and_beads(submission):
    """Gives back a dict: square (a whole number) to beads (a whole number)."""
    box_of(submission, "    O   X")
    box_of(submission, "        X")


@hint("michies_beads")
def test_a_fifth_move_box_has_two_beads_a_colour(submission):
    """A box for a player's 3rd move (5 empty squares for X, 4 for O) has 2 beads a color."""
    check(submission, "    O XOX")
    check(submission, "   OXOX X")


@hint("one_colour_per_move")
def test_a_position_without_symmetry_has_a_colour_per_empty_square(submission):
    """A position that looks different turned every way has a color on every empty square."""
    check(submission, "       OX")
    check(submission, "      OXX")


@hint("michies_beads")
@given(position=positions)
@example(position="  XOO XXO")
def test_every_colour_has_michies_beads(submission, position):
    """Every color gets Michie's number of beads for the position's empty squares."""
    check(submission, position)


@hint("only_empty_squares")
@given(position=positions)
def test_colours_only_on_empty_squares(submission, position):
    """Colors are only ever on empty squares."""
    check(submission, position)


@hint("one_colour_per_move")
@given(position=positions)
@example(position="    O   X")
def test_one_colour_for_each_different_move(submission, position):
    """Each different move has exactly one color: no two colors are the same move."""
    check(submission, position)


@hint("first_square_of_a_move")
@given(position=positions)
def test_the_first_square_of_a_move_gets_the_colour(submission, position):
    """Of the squares that are the same move, the first one gets the color."""
    check(submission, position)


@hint("squares_in_order")
@given(position=positions)
@example(position="         ")
def test_the_squares_are_in_increasing_order(submission, position):
    """The box lists its squares in increasing order."""
    check(submission, position)


@hint("new_box_rules")
def test_agrees_with_the_lesson_on_every_box(submission):
    """Agrees with the reference on all 304 of MENACE's boxes and on every box O needs."""
    for position in O_BOX_NAMES[:: len(O_BOX_NAMES) // 40] + BOX_NAMES:
        expect_equal(submission.new_box(position), reference_new_box(position))


@hint("o_boxes")
@given(position=o_positions)
@example(position="        X")
def test_a_box_for_o_has_michies_beads_for_os_move(submission, position):
    """A box for O has beads for O's own move: 4 a color on its 1st move, down to 1 on its 4th."""
    check(submission, position)


@hint("new_box_rules")
@given(position=positions)
def test_two_calls_give_two_boxes_alike(submission, position):
    """Called twice for one position, it gives the lesson's box both times (nothing is left over).

    Both calls are made whatever the first gave back, and this test comes last, so a file
    that notices the repeat learns nothing it can use.
    """
    first = box_of(submission, position)
    again = submission.new_box(position)
    expect(again == first, "a second call for the same position gave another box", hint="new_box_afresh")
    judge(first, position)
