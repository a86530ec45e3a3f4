"""Hidden tests for name. Students see each test's first docstring line and its hint.

The 8 ways are taken from the lesson's own module (menace_course.lesson.noughts, in the same
order as the starter's WAYS); expected answers come from the reference.

Every answer is checked part by part, so that the hint names the part that is wrong: the
kind of value (a name and a way), the name (the smallest version), the way (it makes the
name) and, where several ways make it, the first of them. A test of something every
function has for free (it leaves the board alone) checks the answer too.
"""

from hypothesis import example, given
from hypothesis import strategies as st

from menace_course import expect, expect_equal, expect_unchanged, hint, reference
from menace_course.lesson.noughts import WAYS

reference_name = reference("name")

boards = st.lists(st.sampled_from([" ", "O", "X"]), min_size=9, max_size=9)
ways = st.integers(0, 7)


def version(board, way):
    """The version of ``board`` that ``way`` makes, as a string."""
    return "".join(board[i] for i in way)


def answer(submission, board):
    """The submission's ``name(board)``, checked to be a (str, list) pair of the right sizes."""
    got = submission.name(board)
    expect(
        type(got) is tuple and len(got) == 2,
        "name must give back a tuple of two things: the name and the way",
        hint="name_and_way",
    )
    found, way = got
    expect(
        type(found) is str and len(found) == 9,
        "the name must be a string of 9 characters",
        hint="name_and_way",
    )
    expect(
        type(way) is list and sorted(way) == list(range(9)),
        "the way must be a list of the 9 squares, one of the lists in WAYS",
        hint="name_and_way",
    )
    return found, way


def check(submission, board, name_hint="smallest_version", way_first=False):
    """``name(board)`` must be the reference's, part by part, each part with its own hint.

    ``name_hint`` is for the name (the test's own rule by default); ``way_first`` checks that
    the way makes the name before the name itself (for the tests about the way).
    """
    found, way = answer(submission, board)
    expected_name, expected_way = reference_name(board)
    if way_first:
        expect_equal(version(board, way), found, hint="way_makes_the_name")
    if found != expected_name and found == min(version(board, w) for w in WAYS[::2]):
        name_hint = "one_name_for_eight_versions"  # the smallest of the 4 turns: the flips are missing
    expect_equal(found, expected_name, hint=name_hint)
    expect_equal(version(board, way), found, hint="way_makes_the_name")
    expect_equal(way, expected_way, hint="first_way_on_ties")


@hint("name_and_way")
def test_gives_back_a_name_and_a_way(submission):
    """Gives back a tuple: the name (a string of 9 characters) and the way (a list)."""
    answer(submission, ["X", "O", "X", " ", "O", " ", " ", " ", " "])


@hint("smallest_version")
def test_x_in_any_corner_has_one_name(submission):
    """X alone in any of the 4 corners gets the same name, with X on square 8, and its way."""
    for corner in (0, 2, 6, 8):
        board = [" "] * 9
        board[corner] = "X"
        check(submission, board)


@hint("smallest_version")
def test_o_in_the_centre_and_x_on_a_side(submission):
    """X on any side with O in the centre gets one name: the smallest version, and its way."""
    for side in (1, 3, 5, 7):
        board = [" "] * 9
        board[4], board[side] = "O", "X"
        check(submission, board)


@hint("first_way_on_ties")
def test_ties_keep_the_first_way(submission):
    """When several ways make the smallest version, the first of them in WAYS is given back."""
    for board in ([" "] * 9, list("    X    "), list("X O   O X"), list("XO O     ")):
        check(submission, board)


@hint("way_makes_the_name")
@given(board=boards)
@example(board=list("XXOO  X  "))
def test_the_way_makes_the_name(submission, board):
    """The way given back makes the name from the board."""
    check(submission, board, way_first=True)


@hint("one_name_for_eight_versions")
@given(board=boards, turn=ways)
@example(board=list("X   O    "), turn=5)
def test_all_eight_versions_share_a_name(submission, board, turn):
    """The 8 versions of a board (turned or flipped) all get the same name."""
    turned = list(version(board, WAYS[turn]))
    expect_equal(answer(submission, turned)[0], answer(submission, board)[0])
    check(submission, turned)


@hint("smallest_version")
@given(board=boards)
def test_the_name_is_the_smallest_version(submission, board):
    """The name is the smallest of the board's 8 versions."""
    check(submission, board)


@hint("name_rules")
@given(board=boards)
@example(board=list("OX XO    "))
@example(board=list("XXXXXXXXX"))
def test_agrees_with_the_reference_on_any_board(submission, board):
    """Agrees with the lesson's name on many boards, even boards no game can reach."""
    expect_equal(submission.name(board), reference_name(board))


@hint("leave_the_board")
@given(board=boards)
def test_leaves_the_board_alone(submission, board):
    """Leaves the board it was given as it was, and gives back its name and way."""
    got = submission.name(board)
    expect_unchanged()
    expect_equal(got, reference_name(board), hint="name_rules")
