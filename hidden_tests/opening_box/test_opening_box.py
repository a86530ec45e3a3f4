"""Hidden tests for opening_box. Students see each test's first docstring line and its hint.

Every game below is a real game record (X first, ending at the first line of three, at a
full board, or where MENACE resigned, at once too: an empty record); the expected counts
always come from the reference.

A test about a tournament first checks each of its games alone, part by part, so that the
hint names what is wrong: which color a game changes (its first move: corner, side or
center), then by how much (how the game ended), and only then the tournament as a whole
(the test's own rule: the floor at 0, no refill, the order of the games). A test of
something every function has for free (the games are left alone) checks the value too:
a function that does nothing earns nothing.
"""

from hypothesis import example, given
from hypothesis import strategies as st

from menace_course import (
    expect,
    expect_equal,
    expect_unchanged,
    hint,
    reference,
    reference_module,
)
from menace_course.checking.compare import same

opening_box = reference("opening_box")

#: Each test's verdict depends only on the answers its own calls get; no test keeps
#: anything for another (``menace validate`` proves it).
TESTS_SHARE_NO_STATE = True
result = reference_module("opening_box").result

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]  # a quarter turn: the version's square i is the board's TURN[i]
TURNED = {square: i for i, square in enumerate(TURN)}  # where each square goes


def turned(moves, times=1):
    """The same game played on a board turned a quarter turn ``times`` times."""
    for _ in range(times):
        moves = [TURNED[square] for square in moves]
    return moves


WON_IN_A_CORNER = [0, 4, 8, 2, 6, 3, 7]  # X's line 6-7-8 on the 7th move
WON_ON_A_SIDE = [1, 0, 4, 2, 7]  # X's line 1-4-7
WON_IN_THE_CENTRE = [4, 0, 2, 1, 6]  # X's line 2-4-6
WON_ON_THE_NINTH_MOVE = [0, 1, 2, 3, 4, 5, 7, 6, 8]  # X's line 0-4-8 fills the board
WON_ON_THE_NINTH_MOVE_FROM_A_SIDE = [1, 0, 2, 3, 4, 5, 8, 7, 6]  # X's line 2-4-6, full board
DRAWN_FROM_THE_CENTRE = [4, 0, 8, 2, 1, 7, 6, 3, 5]
DRAWN_FROM_A_CORNER = [0, 4, 8, 1, 7, 6, 2, 5, 3]
LOST_TO_O = [1, 4, 0, 2, 8, 6]  # O's line 2-4-6
LOST_TO_O_FROM_A_CORNER = [0, 4, 1, 2, 6, 3, 8, 5]  # O's line 3-4-5 on the 8th move
RESIGNED = [0, 4, 8, 2]  # MENACE resigned before its 3rd move
RESIGNED_ON_A_SIDE = [1, 4]
RESIGNED_IN_THE_CENTRE = [4, 0, 8, 2, 1, 7]

for _moves, _result in [
    (WON_IN_A_CORNER, "win"),
    (WON_ON_A_SIDE, "win"),
    (WON_IN_THE_CENTRE, "win"),
    (WON_ON_THE_NINTH_MOVE, "win"),
    (WON_ON_THE_NINTH_MOVE_FROM_A_SIDE, "win"),
    (DRAWN_FROM_THE_CENTRE, "draw"),
    (DRAWN_FROM_A_CORNER, "draw"),
    (LOST_TO_O, "loss"),
    (LOST_TO_O_FROM_A_CORNER, "loss"),
    (RESIGNED, "loss"),
    (RESIGNED_ON_A_SIDE, "loss"),
    (RESIGNED_IN_THE_CENTRE, "loss"),
]:  # the records say what their names say (checked in the grader, once)
    assert result(_moves) == _result, _moves


def has_line(board, mark):
    return any(board[a] == board[b] == board[c] == mark for a, b, c in LINES)


@st.composite
def game_records(draw):
    """A real game: random moves until a line or a full board; now and then MENACE resigns."""
    order = draw(st.permutations(range(9)))
    board = [" "] * 9
    moves = []
    for turn, square in enumerate(order):
        mark = "XO"[turn % 2]
        board[square] = mark
        moves.append(square)
        if has_line(board, mark):
            break
    # MENACE resigns only when it must choose: before its 2nd, 3rd or 4th move.
    stops = [n for n in (2, 4, 6) if n < len(moves)]
    if draw(st.integers(0, 4)) == 0:
        moves = moves[: draw(st.sampled_from(stops))]
    return moves


tournaments = st.lists(game_records() | st.just([]), max_size=16)

MICHIE = [4, 4, 0, 0, 4, 0, 0, 0, 0]
COLOUR_HINT = {0: "corner_bead", 1: "side_bead", 4: "centre_bead"}
BEAD = reference_module("opening_box").BEAD


def result_hint(moves):
    """The hint for how a game ended: the rule that decides this record."""
    if not moves:
        return "empty_record"
    ended = result(moves)
    if ended == "draw":
        return "full_board_draw"
    if ended == "win":
        return "ninth_move_win" if len(moves) == 9 else "opening_box_rules"
    o_line = any(set(line) <= set(moves[1::2]) for line in LINES)
    return "o_line_is_loss" if o_line else "resign_is_loss"


def box_of(submission, games):
    """The submission's box after ``games``, checked to be a list of 9 whole numbers."""
    got = submission.opening_box(games)
    if type(got) is not list:
        expect_equal(got, opening_box(games), hint="return_a_list")
    expect(
        len(got) == 9 and all(type(n) is int for n in got),
        "opening_box must give back a list of 9 whole numbers",
        hint="return_a_list",
    )
    return got


def expect_a_fresh_box(submission, got, games):
    """A second call with the same games must give the same box: else the box is kept.

    The second call is made for every answer, right or wrong: a test that called again
    only after a wrong answer would tell the file that its answer was wrong.
    """
    again = submission.opening_box(games)
    expect(
        same(again, got),
        "a second call with the same games gave another box",
        hint="start_from_michies_box",
    )


def check_game(submission, moves):
    """One game alone: the color of its first move changes, by what its result gives."""
    got, expected = box_of(submission, [moves]), opening_box([moves])
    expect_a_fresh_box(submission, got, [moves])
    if moves:
        changed = {i for i in range(9) if got[i] != MICHIE[i]}
        expect(len(changed) <= 1, "one game changed more than one color", hint="first_move_only")
        expect_equal(sorted(changed), [BEAD[moves[0]]], hint=COLOUR_HINT[BEAD[moves[0]]])
    expect_equal(got, expected, hint=result_hint(moves))


def check(submission, games, hint=None):
    """Each game alone (see :func:`check_game`), then the box after all ``games`` in order."""
    for moves in {tuple(g): g for g in games}.values():
        check_game(submission, moves)
    got = box_of(submission, games)
    expect_a_fresh_box(submission, got, games)
    expect_equal(got, opening_box(games), hint=hint)


@hint("corner_bead")
def test_every_corner_is_the_corner_bead(submission):
    """Games opened in corners 2, 6 and 8 change the corner bead (position 0)."""
    check(submission, [turned(WON_IN_A_CORNER, k) for k in (1, 2, 3)])


@hint("side_bead")
def test_every_side_is_the_side_bead(submission):
    """Games opened on sides 3, 5 and 7 change the side bead (position 1)."""
    check(submission, [turned(WON_ON_A_SIDE, k) for k in (1, 2, 3)])


@hint("centre_bead")
def test_the_centre_is_a_colour_of_its_own(submission):
    """Games opened in the center change the center bead (position 4)."""
    check(submission, [WON_IN_THE_CENTRE, turned(WON_IN_THE_CENTRE, 1)])


@hint("ninth_move_win")
def test_a_line_on_the_ninth_move_is_a_win(submission):
    """A line of three made on the 9th move, filling the board, is a win."""
    check(submission, [WON_ON_THE_NINTH_MOVE, turned(WON_ON_THE_NINTH_MOVE_FROM_A_SIDE, 2)])


@hint("full_board_draw")
def test_a_full_board_without_a_line_is_a_draw(submission):
    """A full board with no line of three is a draw."""
    check(submission, [DRAWN_FROM_A_CORNER, turned(DRAWN_FROM_THE_CENTRE, 3)])


@hint("resign_is_loss")
def test_a_record_that_stops_early_is_a_resignation(submission):
    """A record that stops with squares empty and no line is a loss: MENACE resigned."""
    check(submission, [RESIGNED, turned(RESIGNED_ON_A_SIDE, 1), RESIGNED_IN_THE_CENTRE])


@hint("o_line_is_loss")
def test_a_line_for_o_is_a_loss(submission):
    """A line of three for O is a loss for MENACE."""
    check(submission, [turned(LOST_TO_O, 3), turned(LOST_TO_O_FROM_A_CORNER, 2)])


@hint("floor_at_zero")
def test_repeated_losses_stop_at_zero(submission):
    """Loss after loss takes a color down to 0 and no further."""
    check(submission, [turned(RESIGNED, k % 4) for k in range(7)])


@hint("floor_game_by_game")
def test_the_floor_applies_game_by_game(submission):
    """A color at 0 stays at 0 after a loss, and a later win gives it 3."""
    check(submission, [LOST_TO_O_FROM_A_CORNER] * 6 + [WON_IN_A_CORNER])


@hint("no_refill")
def test_an_emptied_box_is_not_refilled(submission):
    """A box whose colors have all reached 0 is not refilled."""
    losses = [RESIGNED] * 4 + [RESIGNED_ON_A_SIDE] * 4 + [RESIGNED_IN_THE_CENTRE] * 4
    check(submission, [*losses, DRAWN_FROM_THE_CENTRE])


@hint("empty_record")
def test_a_game_with_no_moves_leaves_the_box_as_it_is(submission):
    """A game with no moves (MENACE resigned before its first move) leaves the box as it is."""
    check(submission, [[]], hint="empty_record")
    emptied = [RESIGNED] * 4 + [RESIGNED_ON_A_SIDE] * 4 + [RESIGNED_IN_THE_CENTRE] * 4
    check(submission, [WON_IN_A_CORNER, LOST_TO_O, *emptied, [], []], hint="empty_record")


@hint("leave_the_games_alone")
def test_leaves_the_games_alone(submission):
    """Leaves the list of games, and every game in it, as it was, and gives back the right box."""
    games = [WON_ON_A_SIDE, LOST_TO_O, DRAWN_FROM_A_CORNER, RESIGNED]
    got = submission.opening_box(games)
    expect_unchanged()
    expect_equal(got, opening_box(games), hint="opening_box_rules")


@hint("start_from_michies_box")
def test_starts_from_michies_box_every_call(submission):
    """Called twice with the same games, it gives the same box twice."""
    games = [WON_IN_A_CORNER, WON_IN_THE_CENTRE]
    check(submission, games)
    check(submission, games)


@hint("opening_box_rules")
@given(games=tournaments)
@example(games=[])
@example(games=[WON_ON_THE_NINTH_MOVE, RESIGNED_ON_A_SIDE, LOST_TO_O_FROM_A_CORNER])
@example(games=[turned(RESIGNED, k % 4) for k in range(6)] + [turned(DRAWN_FROM_A_CORNER, 1)])
@example(games=[RESIGNED] * 5 + [[], [], WON_IN_THE_CENTRE])
def test_agrees_with_michies_rules_on_any_tournament(submission, games):
    """Agrees with Michie's rules on many generated tournaments."""
    expect_equal(box_of(submission, games), opening_box(games))


@hint("leave_the_games_alone")
@given(games=tournaments)
def test_never_changes_the_games(submission, games):
    """Never changes the games it was given, whatever they are, and gives back the right box."""
    got = submission.opening_box(games)
    expect_unchanged()
    expect_equal(got, opening_box(games), hint="opening_box_rules")
