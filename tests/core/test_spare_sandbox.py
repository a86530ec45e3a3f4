"""The next submission's sandbox is started before it comes, and still serves that one submission only.

A grader process keeps one child started ahead (``sandbox/spare.py``): bubblewrap and Python
are running and the harness waits, with no submission, for its first message. These tests
hold it to what a child made for its submission guarantees: the same answers and charges,
one submission per sandbox, nothing of the last submission in it, and a spare that died
or has other limits never handed to a student.
"""

from __future__ import annotations

import time

import pytest

from menace_course.catalog import load_challenge
from menace_course.checking import pipeline
from menace_course.course import find_course
from menace_course.limits import Limits
from menace_course.pool import Graders
from menace_course.sandbox import spare
from menace_course.sandbox.child import Child
from tests.check.test_nothing_left_behind import EVERYTHING, LEAVE, LOOK, _kinds
from tests.support import REPO

KINDS = [pytest.param("process", id="process"), pytest.param("bwrap", id="bwrap", marks=pytest.mark.bwrap)]
FAST = Limits(call_seconds=0.5, import_seconds=2, budget_seconds=5)
SOURCE = "def double(xs):\n    return [2 * x for x in xs]\n\ndef spin():\n    while True:\n        pass\n"


@pytest.fixture
def spares():
    """Spares on in this (test) process, as a grader process has them; off again after."""
    spare.enable()
    yield spare
    spare.discard()
    spare._enabled = False
    spare._wanted = None


@pytest.mark.parametrize("kind", KINDS)
def test_a_child_started_ahead_answers_as_one_started_for_its_submission(kind):
    with Child(SOURCE, kind, FAST) as fresh, Child.ahead(kind, FAST) as ahead:
        assert ahead.waiting() and ahead.started_ahead
        ahead.assign(SOURCE)
        assert not ahead.waiting()
        assert fresh.load().functions == ahead.load().functions
        assert fresh.call("double", [[1, 2]]).result == ahead.call("double", [[1, 2]]).result == [2, 4]
        # A hang is charged, and kills the function, exactly as in a child made for the file.
        assert fresh.call("spin", []).status == ahead.call("spin", []).status == "timeout"
        assert ahead.dead_functions == fresh.dead_functions == {"spin"}


@pytest.mark.parametrize("kind", KINDS)
def test_the_time_a_spare_waited_is_never_charged_to_its_submission(kind):
    with Child.ahead(kind, FAST) as ahead:
        time.sleep(FAST.import_seconds + 0.5)  # longer than a load may take
        before = time.monotonic()
        ahead.assign(SOURCE)
        assert ahead.deadline is not None and ahead.deadline >= before + FAST.wall_limit
        assert ahead.load().status == "ready"
        assert ahead.spent < FAST.import_seconds


def test_a_child_serves_one_submission_only():
    with Child.ahead("process", FAST) as ahead:
        with pytest.raises(RuntimeError, match="loads only once it is given"):
            ahead.load()
        ahead.assign(SOURCE)
        with pytest.raises(RuntimeError, match="serves one submission"):
            ahead.assign("def double(xs):\n    return xs\n")
        assert ahead.load().status == "ready"
    with Child(SOURCE, "process", FAST) as made_for_its_file, pytest.raises(RuntimeError):
        made_for_its_file.assign(SOURCE)


def test_a_spare_is_used_only_for_the_same_sandbox_and_limits(spares):
    assert spares.claim("process", FAST) is None  # nothing started yet; remembered
    spares.refill()
    other = Limits(call_seconds=4.0)
    assert spares.claim("process", other) is None  # closed: its limits are on its command line
    spares.refill()
    ready = spares.claim("process", other)
    assert ready is not None and ready.limits == other
    ready.close()


def test_a_spare_that_died_while_it_waited_is_never_handed_to_a_student(spares):
    spares.claim("process", FAST)
    spares.refill()
    kept = spares._kept
    assert kept is not None
    kept._kill()  # as if the system had killed it
    assert spares.claim("process", FAST) is None  # a fresh child is started instead


def _check(task: tuple[str, str]) -> list[object]:
    """A task for a grader process: check ``source``; whether its child was a spare, and its answer."""
    kind, source = task
    target = pipeline.Target.of(load_challenge(find_course(REPO), "after_game"))
    with pipeline.open_submission(("after_game.py", source.encode()), target, kind) as opened:  # type: ignore[arg-type]
        assert opened.proxy is not None and opened.worker is not None, opened.why_not
        answers = [opened.proxy.after_game([0] * 9, 0, "win") for _ in range(2)]
        return [opened.worker.started_ahead, answers[-1]]


@pytest.mark.parametrize("kind", _kinds())
def test_the_spare_holds_nothing_the_last_submission_left(kind):
    # In one grader process, as the service's and menace grade's run checks: the second and
    # third checks run in children started ahead, after the leaver's child was killed.
    with Graders(1) as graders:
        left = graders.call(_check, (kind, LOOK + LEAVE), seconds=60)
        after = graders.call(_check, (kind, LOOK), seconds=60)
        again = graders.call(_check, (kind, LOOK), seconds=60)
    assert left[0] is False and EVERYTHING <= set(left[1])  # the leaver sees all it left
    assert after == [True, []]
    assert again == [True, []]
