"""Hidden tests for count_boxes. Students see each test's first docstring line and its hint.

count_boxes searches every game, so it is slow to call: each submission is asked for
``count_boxes('X')`` and ``count_boxes('O')`` once, and the answers are shared by the tests
below (kept per submission, never across submissions). A call that fails is not kept, so
each test that needs it reports the problem itself.
"""

import functools
import weakref

from menace_course import expect, expect_equal, hint, reference
from menace_course.checking.compare import same

count_boxes = reference("count_boxes")

_answers = weakref.WeakKeyDictionary()


@functools.cache
def expected(mark):
    """The reference's counts for ``mark`` (computed once, in the grader)."""
    return count_boxes(mark)


def answer(submission, mark):
    """The submission's ``count_boxes(mark)``, asked once per submission."""
    kept = _answers.setdefault(submission, {})
    if mark not in kept:
        kept[mark] = submission.count_boxes(mark)
    return kept[mark]


def earlier_answers(submission, mark):
    """Every answer the submission gave to ``count_boxes(mark)`` so far (the example's too)."""
    return [
        call.outcome.result
        for call in submission.calls
        if call.function == "count_boxes"
        and call.args == (mark,)
        and call.outcome is not None
        and call.outcome.status == "returned"
    ]


def expect_the_same_answer_each_time(submission, mark):
    answers = earlier_answers(submission, mark)
    expect(
        all(same(other, answers[0]) for other in answers),
        f"count_boxes({mark!r}) gave different answers when asked again",
        hint="start_afresh",
    )


def counts(submission, mark):
    """The answer, checked to be the same each time and a list of whole numbers."""
    got = answer(submission, mark)
    expect_the_same_answer_each_time(submission, mark)
    expect(
        type(got) is list and all(type(n) is int for n in got),
        "count_boxes must give back a list of whole numbers",
        hint="counts_in_a_list",
    )
    return got


def o_counts(submission):
    """O's answer, which must not simply repeat the numbers the submission gave for X."""
    got = counts(submission, "O")
    expect(
        got != counts(submission, "X") or expected("O") == expected("X"),
        "count_boxes('O') gave the same numbers as count_boxes('X')",
        hint="o_is_not_x",
    )
    return got


#: The hint for a wrong number of counts: X counted a move with one square left, or O missed one.
LENGTH_HINT = {"X": "no_box_for_the_last_move", "O": "boxes_for_o"}
#: The first of the player's moves (1-based) where finished games (a line of three) matter.
FINISHED_FROM = {"X": 4, "O": 3}


def move_hint(got, mark, move):
    """The rule that decides the count of the player's ``move``-th move."""
    if move == 1:  # X's first box is the empty board's; O's first boxes are already turned boards
        return "count_before_the_move" if mark == "X" else "one_name_for_eight_versions"
    if move < FINISHED_FROM[mark]:
        return "one_name_for_eight_versions"
    return finished_or_symmetry(got, mark, FINISHED_FROM[mark] - 1)


def finished_or_symmetry(got, mark, moves):
    """Finished games matter only from X's 4th move and O's 3rd on; if earlier counts are
    off too, the names (turned and flipped versions) are the likelier cause."""
    earlier = slice(0, moves)
    if same(got[earlier], expected(mark)[earlier]):
        return "finished_games_need_no_box"
    return "one_name_for_eight_versions"


def expect_counts(submission, mark, upto):
    """The player's counts must be the reference's, move by move up to ``upto`` (each move
    with the hint of its rule), and, for ``upto=None``, all of them, no more and no fewer.

    X's counts are printed in the challenge; every test that checks them checks O's too,
    so that copying the printed numbers earns nothing.
    """
    got = o_counts(submission) if mark == "O" else counts(submission, "X")
    wanted = expected(mark)
    for move in range(1, (upto or len(wanted)) + 1):
        expect(len(got) >= move, f"count_boxes({mark!r}) gave too few numbers", hint=LENGTH_HINT[mark])
        expect_equal(got[move - 1], wanted[move - 1], hint=move_hint(got, mark, move))
    if upto is None:
        expect_equal(len(got), len(wanted), hint=LENGTH_HINT[mark])
    return got


@hint("counts_in_a_list")
def test_gives_back_a_list_of_whole_numbers(submission):
    """Gives back a list of whole numbers, for X and for O."""
    counts(submission, "X")
    counts(submission, "O")


@hint("count_before_the_move")
def test_one_box_before_each_players_first_move(submission):
    """Each player's first boxes are for what it sees before its first move (X: the empty board)."""
    expect_counts(submission, "X", 1)
    expect_counts(submission, "O", 1)


@hint("one_name_for_eight_versions")
def test_turned_and_flipped_positions_share_a_box(submission):
    """A position and its turned or flipped versions share one box (each player's 2nd move)."""
    expect_counts(submission, "X", 2)
    expect_counts(submission, "O", 2)


@hint("one_name_for_eight_versions")
def test_symmetry_counted_for_the_third_moves(submission):
    """Each player's 3rd move: one box for each position, however it is turned."""
    expect_counts(submission, "X", 3)
    expect_counts(submission, "O", 3)


@hint("finished_games_need_no_box")
def test_no_box_for_a_finished_game(submission):
    """Positions with a line of three already on them need no box (O's 3rd and 4th, X's 4th move)."""
    expect_counts(submission, "X", 4)
    expect_counts(submission, "O", 4)


@hint("no_box_for_the_last_move")
def test_no_box_for_a_move_with_one_square_left(submission):
    """X's 5th move has one square left and needs no box; O's 4th has two and does: 4 numbers each."""
    expect_counts(submission, "X", None)
    expect_counts(submission, "O", None)


@hint("start_afresh")
def test_gives_the_same_answer_every_time(submission):
    """Asked for X again, after O, it gives the same numbers as before."""
    expect_counts(submission, "X", None)
    expect_counts(submission, "O", None)
    submission.count_boxes("X")
    expect_the_same_answer_each_time(submission, "X")
