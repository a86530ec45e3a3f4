"""Hidden tests for play_game. Students see each test's first docstring line and its hint.

play_game is stateful and random, so every check replays a seeded game: the student's
function runs in the sandbox on some boxes, and the reference plays the same seed on a
copy of the same boxes here, in the grader. The boxes after the game are the argument
as the sandbox saw it after the call. Boxes "after some training" are made by the
reference playing a few seeded games (kept per training, so each is made once).
"""

import copy
import functools
import weakref

from hypothesis import example, given
from hypothesis import strategies as st

from menace_course import expect, expect_equal, hint, reference

reference_play_game = reference("play_game")
RESULTS = ("win", "draw", "loss")
REWARD = {"win": 3, "draw": 1, "loss": -1}
FIRST = " " * 9
#: The submissions (of the checks running now) that played one seeded game twice, two ways.
SEEDLESS = weakref.WeakSet()

opponents = st.sampled_from(["perfect", "random"])
seeds = st.integers(0, 10**6)
trainings = st.integers(0, 12)


def play(submission, boxes, opponent, seed):
    """The submission's result and its boxes after the game."""
    result = submission.play_game(boxes, opponent, seed)
    expect(
        type(result) is str and result in RESULTS,
        "play_game must give back 'win', 'draw' or 'loss'",
        hint="result_words",
    )
    return result, submission.last_call.outcome.args_after[0]


def check(submission, boxes, opponent, seed, hint=None):
    """The submission's game must be the lesson's: its result and the boxes after it.

    One call, whatever it gives back: a test never calls again because an answer was
    wrong (a file that noticed the repeat would learn that its guess was wrong). When the
    game is not the lesson's, what went wrong is looked for in what came back, so that
    the hint names it: the boxes given did not change (it learned in a copy); the game
    ended alike but the boxes are not the lesson's (a box made under another key, or
    made again), or their beads are not. Otherwise ``hint``, or the lesson's rules for a
    game that went otherwise; or, when the first test found that the seed does not decide the
    game, that the seed comes first.
    """
    got = play(submission, copy.deepcopy(boxes), opponent, seed)
    return judge(got, boxes, opponent, seed, hint, submission)


def judge(got, boxes, opponent, seed, hint=None, submission=None):
    """What :func:`check` decides about ``got``, the game played from ``boxes``; it makes no call."""
    expected = lesson(boxes, opponent, seed)
    if got != expected:
        if submission in SEEDLESS:  # the first test played one game twice: two games came back
            expect_equal(got, expected, hint="seed_first")
        expect(
            got[1] != boxes or expected[1] == boxes,
            "the boxes given are the same after the game",
            hint="change_the_boxes_given",
        )
        if got[0] == expected[0]:  # the same game, but other boxes, or other beads in them
            expect_equal(sorted(got[1]), sorted(expected[1]), hint="box_when_first_met")
            hint = hint or "learn_from_every_bead"
    expect_equal(got, expected, hint=hint or "play_game_rules")
    return got


def lesson(boxes, opponent, seed):
    """The reference's result and boxes after the same game, from a copy of ``boxes``."""
    boxes = copy.deepcopy(boxes)
    return reference_play_game(boxes, opponent, seed), boxes


@functools.lru_cache(maxsize=256)
def _trained(games, opponent, seed):
    boxes = {}
    for game in range(games):
        reference_play_game(boxes, opponent, seed * 100 + game)
    return boxes


def trained(games, opponent, seed, emptied=None):
    """Boxes after ``games`` seeded games of the reference; ``emptied``: a box to empty."""
    boxes = copy.deepcopy(_trained(games, opponent, seed))
    if emptied is not None and boxes:
        position = sorted(boxes)[emptied % len(boxes)]
        boxes[position] = {square: 0 for square in boxes[position]}
    return boxes


def opened(before, after):
    """The names of the boxes that changed or were added."""
    return {position for position, box in after.items() if before.get(position) != box}


def counts_ok(boxes):
    """True when every box is a dict of int squares to int beads, none below 0."""
    return type(boxes) is dict and all(
        type(box) is dict and all(type(n) is int and n >= 0 for n in box.values()) for box in boxes.values()
    )


@hint("seed_first")
def test_the_seed_decides_the_game(submission):
    """The same boxes and the same seed give the same game, twice.

    First of all, for every file alike: its second call repeats its first whatever the
    first gave back. A file whose two games differ ignores the seed, and every later test
    that finds a game not the lesson's says so in its hint (see :func:`judge`).
    """
    boxes = trained(4, "random", 3)
    first = play(submission, copy.deepcopy(boxes), "random", 11)
    second = play(submission, copy.deepcopy(boxes), "random", 11)
    if second != first:
        SEEDLESS.add(submission)
    expect_equal(second, first)
    expect_equal(first, lesson(boxes, "random", 11), hint="play_game_rules")


@hint("result_words")
def test_gives_back_how_the_game_ended(submission):
    """Gives back 'win', 'draw' or 'loss': how the lesson's game with that seed ended."""
    for seed in (2, 7, 12):  # a win, a loss and a draw against the random player, from no boxes
        result, _ = play(submission, {}, "random", seed)
        expect_equal(result, lesson({}, "random", seed)[0], hint="play_game_rules")


@hint("play_game_rules")
def test_a_first_game_against_perfect(submission):
    """A first game against the perfect player, from no boxes, is the lesson's game."""
    check(submission, {}, "perfect", 1)


@hint("box_when_first_met")
def test_opens_a_box_for_each_new_position(submission):
    """Each position MENACE meets gets a box under its name, made the first time it comes up."""
    check(submission, {}, "random", 5)


@hint("resign_and_refill")
def test_resigns_on_an_empty_first_box(submission):
    """An empty first box: MENACE resigns (a loss) and the box is filled again."""
    boxes = {FIRST: {0: 0, 1: 0, 4: 0}}
    assert lesson(boxes, "perfect", 1) == ("loss", {FIRST: {0: 4, 1: 4, 4: 4}})  # the rule, in the grader
    check(submission, boxes, "perfect", 1, hint="resign_and_refill")


@hint("resign_and_refill")
def test_resigning_later_keeps_out_the_beads_drawn_before(submission):
    """Resigning at a later box is a loss: the beads drawn before are kept out."""
    boxes = {FIRST: {0: 0, 1: 0, 4: 1}, "    X   O": {0: 0, 1: 0, 2: 0, 5: 0}}
    check(submission, boxes, "perfect", 1, hint="resign_and_refill")


@hint("learn_from_every_bead")
def test_a_win_adds_three_beads_in_every_box_opened(submission):
    """After a win, every bead drawn goes back with 3 more of its color."""
    check(submission, {}, "random", 2)


@hint("last_square_no_box")
def test_a_draw_adds_one_bead_and_the_last_square_needs_no_box(submission):
    """After a draw every bead drawn gets 1 more, and the last square is played without a box."""
    check(submission, {}, "random", 12)


@hint("learn_from_every_bead")
def test_a_loss_takes_a_bead_in_every_box_opened(submission):
    """After a loss, every bead drawn is kept out of its box."""
    boxes = trained(6, "perfect", 7)
    check(submission, boxes, "perfect", 4)


@hint("change_the_boxes_given")
def test_learns_in_the_boxes_it_was_given(submission):
    """The boxes it was given are changed: the next game starts from what this one learned."""
    boxes = trained(3, "random", 1)
    got = play(submission, copy.deepcopy(boxes), "random", 2)
    expect(got[1] != boxes, "the boxes given are the same after the game")
    expect_equal(got, lesson(boxes, "random", 2), hint="play_game_rules")


def _tournament(submission, opponent, games):
    boxes = {}
    for seed in range(1, games + 1):
        boxes = check(submission, boxes, opponent, seed)[1]


@hint("play_game_rules")
def test_a_tournament_against_perfect(submission):
    """Thirty games in a row against the perfect player, each one as in the lesson."""
    _tournament(submission, "perfect", 30)


@hint("play_game_rules")
def test_a_tournament_against_random(submission):
    """Thirty games in a row against the random player, each one as in the lesson."""
    _tournament(submission, "random", 30)


@hint("play_game_rules")
@given(games=trainings, opponent=opponents, seed=seeds)
@example(games=12, opponent="perfect", seed=1)
def test_agrees_with_the_lesson_after_any_training(submission, games, opponent, seed):
    """Agrees with the lesson's game after many different trainings, seeds and opponents."""
    boxes = trained(games, opponent, seed)
    check(submission, boxes, opponent, seed)


@hint("beads_never_negative")
@given(games=trainings, opponent=opponents, seed=seeds, emptied=st.none() | st.integers(0, 40))
def test_beads_never_go_below_zero(submission, games, opponent, seed, emptied):
    """No bead count is ever below 0, whatever the boxes and the game, and the game is the lesson's."""
    boxes = trained(games, opponent, seed, emptied)
    got = play(submission, boxes, opponent, seed)
    expect(counts_ok(got[1]), "a bead count is below 0 (or not a whole number)")
    expect_equal(got, lesson(boxes, opponent, seed), hint="play_game_rules")


@hint("only_opened_boxes_change")
@given(games=trainings, opponent=opponents, seed=seeds, emptied=st.none() | st.integers(0, 40))
@example(games=0, opponent="random", seed=12, emptied=None)
def test_only_the_boxes_opened_change(submission, games, opponent, seed, emptied):
    """Only the boxes MENACE opened in the game change; every other box stays as it was."""
    before = trained(games, opponent, seed, emptied)
    result, after = play(submission, copy.deepcopy(before), opponent, seed)
    expect(set(before) <= set(after), "a box was taken away")
    changed = opened(before, after)
    expect(len(changed) <= 4, "more boxes changed than MENACE can open in one game")
    for position in changed & set(before):
        old, new = before[position], after[position]
        moved = [s for s in old if old[s] != new.get(s)]
        refilled = sum(old.values()) == 0
        expect(
            refilled or (len(moved) == 1 and set(old) == set(new)),
            "a box changed in more than the one color drawn from it",
        )
        if not refilled:
            expect(
                new[moved[0]] == max(0, old[moved[0]] + REWARD[result]),
                "a bead's count changed by other than the game's reward",
                hint="learn_from_every_bead",
            )
    judge((result, after), before, opponent, seed, "play_game_rules", submission)
