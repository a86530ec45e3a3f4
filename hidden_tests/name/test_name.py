"""Hidden tests for name. Students see each test's first docstring line and its hint.

Boards are 3 x 3 (9 squares) or 4 x 4 (16). The 8 ways of a 3 x 3 board are the lesson's
own (menace_course.lesson.noughts, in the same order as the starter's WAYS); those of a
4 x 4 board are made here the same way, from its quarter turn and its flip. Expected
answers come from the reference. Almost every test has a 4 x 4 board: the lesson's own
``name``, which knows only the 3 x 3 ways, earns a small part of the points.

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

#: Each test's verdict depends only on the answers its own calls get; no test keeps
#: anything for another (``menace validate`` proves it).
TESTS_SHARE_NO_STATE = True
SQUARES = st.sampled_from([" ", "O", "X"])

boards = st.lists(SQUARES, min_size=9, max_size=9) | st.lists(SQUARES, min_size=16, max_size=16)
big_boards = st.lists(SQUARES, min_size=16, max_size=16)
ways = st.integers(0, 7)


def ways_of(board):
    """The 8 ways of ``board``'s size: the lesson's WAYS for 3 x 3, made alike for 4 x 4."""
    if len(board) == 9:
        return WAYS
    n = 4
    turn = [(n - 1 - c) * n + r for r in range(n) for c in range(n)]
    flip = [r * n + (n - 1 - c) for r in range(n) for c in range(n)]
    made, way = [], list(range(n * n))
    for _ in range(4):
        made += [way, [way[i] for i in flip]]
        way = [way[i] for i in turn]
    return made


def blank(size, **marks):
    """A board of ``size`` squares, empty but for ``marks`` (square number -> mark)."""
    board = [" "] * size
    for square, mark in marks.items():
        board[int(square.removeprefix("s"))] = mark
    return board


def version(board, way):
    """The version of ``board`` that ``way`` makes, as a string."""
    return "".join(board[i] for i in way)


def answer(submission, board):
    """The submission's ``name(board)``, checked to be a (str, list) pair of the board's size."""
    got = submission.name(board)
    expect(
        type(got) is tuple and len(got) == 2,
        "name must give back a tuple of two things: the name and the way",
        hint="name_and_way",
    )
    found, way = got
    expect(type(found) is str, "the name must be a string", hint="name_and_way")
    expect(type(way) is list, "the way must be a list of the board's squares", hint="name_and_way")
    size = len(board)
    expect(
        len(found) == size and sorted(way) == list(range(size)),
        "the name must have a character for each square, and the way each square once",
        hint="any_size_board",
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
    if found != expected_name and found == min(version(board, w) for w in ways_of(board)[::2]):
        name_hint = "one_name_for_eight_versions"  # the smallest of the 4 turns: the flips are missing
    expect_equal(found, expected_name, hint=name_hint)
    expect_equal(version(board, way), found, hint="way_makes_the_name")
    expect_equal(way, expected_way, hint="first_way_on_ties")


@hint("name_and_way")
def test_gives_back_a_name_and_a_way(submission):
    """Gives back a tuple: the name (a string, a character a square) and the way (a list)."""
    answer(submission, ["X", "O", "X", " ", "O", " ", " ", " ", " "])
    answer(submission, blank(16, s0="X", s5="O", s6="X"))


@hint("smallest_version")
def test_x_in_any_corner_has_one_name(submission):
    """X alone in any of the 4 corners gets the same name, with X on the last square, and its way."""
    for size, corners in ((9, (0, 2, 6, 8)), (16, (0, 3, 12, 15))):
        for corner in corners:
            board = [" "] * size
            board[corner] = "X"
            check(submission, board)


@hint("smallest_version")
def test_o_in_the_centre_and_x_on_a_side(submission):
    """X on any side with O in the center gets one name (on 4 x 4, O and X side by side)."""
    for side in (1, 3, 5, 7):
        board = [" "] * 9
        board[4], board[side] = "O", "X"
        check(submission, board)
    for way in ways_of([" "] * 16):
        check(submission, list(version(blank(16, s1="X", s5="O"), way)))


@hint("first_way_on_ties")
def test_ties_keep_the_first_way(submission):
    """When several ways make the smallest version, the first of them in WAYS is given back."""
    for board in ([" "] * 9, list("    X    "), list("X O   O X"), list("XO O     ")):
        check(submission, board)
    for board in ([" "] * 16, blank(16, s0="X", s15="X"), blank(16, s5="O", s6="O", s9="O", s10="O")):
        check(submission, board)


@hint("way_makes_the_name")
@given(board=boards)
@example(board=list("XXOO  X  "))
@example(board=list("XXOO  X   O  X  "))
def test_the_way_makes_the_name(submission, board):
    """The way given back makes the name from the board."""
    check(submission, board, way_first=True)


@hint("one_name_for_eight_versions")
@given(board=boards, turn=ways)
@example(board=list("X   O    "), turn=5)
@example(board=list("X    O          "), turn=5)
def test_all_eight_versions_share_a_name(submission, board, turn):
    """The 8 versions of a board (turned or flipped) all get the same name."""
    turned = list(version(board, ways_of(board)[turn]))
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
@example(board=list("OX XO     X  O  "))
def test_agrees_with_the_reference_on_any_board(submission, board):
    """Agrees with the reference on many boards of both sizes, even boards no game can reach."""
    expect_equal(submission.name(board), reference_name(board))


@hint("leave_the_board")
@given(board=big_boards)
def test_leaves_the_board_alone(submission, board):
    """Leaves the board it was given as it was, and gives back its name and way."""
    got = submission.name(board)
    expect_unchanged()
    expect_equal(got, reference_name(board), hint="name_rules")


@hint("any_size_board")
@given(board=big_boards)
@example(board=list("X               "))
def test_a_four_by_four_board_has_its_own_eight_ways(submission, board):
    """A 4 x 4 board has 8 versions too: the name has 16 characters, and its way 16 squares."""
    check(submission, board)
