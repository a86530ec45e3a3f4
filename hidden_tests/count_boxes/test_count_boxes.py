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


def expect_count(got, mark, move, hint=None):
    """The count for the player's ``move``-th move (1-based) must be the reference's."""
    expect_equal(got[move - 1 : move], expected(mark)[move - 1 : move], hint=hint)


def finished_or_symmetry(got, mark, moves):
    """Finished games matter only from X's 4th move on; if earlier counts are off too,
    the names (turned and flipped versions) are the likelier cause."""
    earlier = slice(0, moves)
    if same(got[earlier], expected(mark)[earlier]):
        return "finished_games_need_no_box"
    return "one_name_for_eight_versions"


@hint("counts_in_a_list")
def test_gives_back_a_list_of_whole_numbers(submission):
    """Gives back a list of whole numbers, for X and for O."""
    counts(submission, "X")
    counts(submission, "O")


@hint("count_before_the_move")
def test_one_box_before_x_first_move(submission):
    """X's first box is for the empty board: one box."""
    expect_count(counts(submission, "X"), "X", 1)


@hint("one_name_for_eight_versions")
def test_turned_and_flipped_positions_share_a_box(submission):
    """A position and its turned or flipped versions share one box (X's 2nd move)."""
    expect_count(counts(submission, "X"), "X", 2)


@hint("one_name_for_eight_versions")
def test_symmetry_counted_for_x_third_move(submission):
    """X's 3rd move: one box for each position, however it is turned."""
    expect_count(counts(submission, "X"), "X", 3)


@hint("finished_games_need_no_box")
def test_no_box_for_a_finished_game(submission):
    """X's 4th move: positions with a line of three already on them need no box."""
    got = counts(submission, "X")
    expect_count(got, "X", 4, hint=finished_or_symmetry(got, "X", 3))


@hint("no_box_for_the_last_move")
def test_no_box_for_a_move_with_one_square_left(submission):
    """X's 5th move has one square left and needs no box: X gets 4 numbers."""
    expect_equal(len(counts(submission, "X")), len(expected("X")))


@hint("boxes_for_o")
def test_o_needs_a_box_before_each_of_its_four_moves(submission):
    """O needs boxes before the game's 2nd, 4th, 6th and 8th moves: 4 numbers."""
    expect_equal(len(o_counts(submission)), len(expected("O")))


@hint("boxes_for_o")
def test_o_first_boxes(submission):
    """O's boxes for its 1st and 2nd moves, after X's first and second marks."""
    x_right = same(counts(submission, "X"), expected("X"))
    hint = "boxes_for_o" if x_right else "count_boxes_rules"  # X wrong too: a rule for both
    expect_equal(o_counts(submission)[:2], expected("O")[:2], hint=hint)


@hint("finished_games_need_no_box")
def test_o_boxes_leave_out_games_x_has_won(submission):
    """O's boxes for its 3rd and 4th moves leave out games X has already won."""
    got = o_counts(submission)
    expect_equal(got[2:], expected("O")[2:], hint=finished_or_symmetry(got, "O", 2))


@hint("count_boxes_rules")
def test_counts_every_box_o_needs(submission):
    """All of O's counts, in the order of its moves."""
    expect_equal(o_counts(submission), expected("O"))


@hint("start_afresh")
def test_gives_the_same_answer_every_time(submission):
    """Asked for X again, after O, it gives the same numbers as before."""
    counts(submission, "X")
    counts(submission, "O")
    submission.count_boxes("X")
    expect_the_same_answer_each_time(submission, "X")
