"""A call and its repeat sent as one request: same answers, and each still fails on its own.

When a test is certain to call ``expect_unchanged()`` right after a call, the grader sends
the repeat with the call (``Child.call(..., then_again=True)``). These tests hold that to
what sending them one by one gives: the same results and verdicts, each call its own
deadline, and a hang, crash or oversized reply in the repeat is the repeat's, not the
first call's. The child is hostile: replies out of order, missing or extra are refused.
"""

import json

import pytest

from menace_course.checking.proxy import SubmissionProxy
from menace_course.checking.testing import expect_unchanged
from menace_course.limits import Limits
from menace_course.sandbox.child import Child
from menace_course.sandbox.launch import LaunchPlan
from menace_course.sandbox.outcomes import refused_for_size

KINDS = [pytest.param("process", id="process"), pytest.param("bwrap", id="bwrap", marks=pytest.mark.bwrap)]
FAST = Limits(call_seconds=0.5, import_seconds=2, budget_seconds=10)

SECOND_TIME = """
import os
calls = []
def appends(beads):
    beads.append(len(beads))
    return list(beads)
def hangs_second_time(beads):
    calls.append(1)
    while len(calls) == 2:
        pass
    return 1
def dies_second_time(beads):
    calls.append(1)
    if len(calls) == 2:
        os._exit(3)
    return 1
def huge_second_time(beads):
    calls.append(1)
    return "x" * 200_000 if len(calls) == 2 else 1
def copies(beads):
    return list(beads)
def raises(beads):
    raise ValueError("no")
"""


def started(kind, limits=FAST):
    worker = Child(SECOND_TIME, kind, limits)
    assert worker.load().status == "ready"
    return worker


@pytest.mark.parametrize("kind", KINDS)
def test_a_repeat_sent_with_its_call_answers_as_one_sent_alone(kind):
    with started(kind) as batched, started(kind) as alone:
        first = batched.call("appends", [[7]], then_again=True)
        again = batched.call_again()
        pair_requests = batched.requests
        first_alone = alone.call("appends", [[7]])
        again_alone = alone.call_again()
        after = batched.call("appends", [[]])  # the channel is in step again
    assert (first.result, again.result) == (first_alone.result, again_alone.result) == ([7, 1], [7, 1, 2])
    assert again.args_after == again_alone.args_after == ([7, 1, 2],)
    assert after.result == [0]
    assert (pair_requests, alone.requests, batched.unused_repeats) == (1, 2, 0)


@pytest.mark.parametrize("kind", KINDS)
def test_a_hang_in_the_repeat_times_out_the_repeat_alone(kind):
    with started(kind) as worker:
        first = worker.call("hangs_second_time", [[1]], then_again=True)
        again = worker.call_again()
        later = worker.call("appends", [[]])
    assert first.status == "returned" and first.seconds < FAST.call_seconds
    assert again.status == "timeout"
    assert "hangs_second_time" in worker.dead_functions
    assert later.status == "returned"  # a fresh child answers the next call
    # charged: the first call, the repeat's own limit (at most the starvation ceiling), the restart
    assert worker.spent < FAST.call_seconds * 4 + FAST.import_seconds + 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_crash_in_the_repeat_is_the_repeats_crash(kind):
    with started(kind) as worker:
        first = worker.call("dies_second_time", [[1]], then_again=True)
        again = worker.call_again()
    assert first.status == "returned" and first.result == 1
    assert again.status == "crashed" and again.exit_code == 3


@pytest.mark.parametrize("kind", KINDS)
def test_an_oversized_repeat_reply_is_refused_as_that_calls(kind):
    limits = Limits(call_seconds=0.5, import_seconds=2, budget_seconds=10, reply_bytes=50_000)
    with started(kind, limits) as worker:
        first = worker.call("huge_second_time", [[1]], then_again=True)
        again = worker.call_again()
    assert first.status == "returned" and first.result == 1
    assert again.status == "crashed" and refused_for_size(again)


@pytest.mark.parametrize("kind", KINDS)
def test_a_call_that_raises_sends_no_repeat_and_the_next_call_is_in_step(kind):
    with started(kind) as worker:
        raised = worker.call("raises", [[1]], then_again=True)
        assert worker.call_again().status == "dead"
        after = worker.call("appends", [[5]])
    assert raised.status == "raised" and after.result == [5, 1]
    assert worker.forged == 0 and worker.unused_repeats == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_repeat_no_one_takes_ends_that_child_and_is_counted(kind):
    with started(kind) as worker:
        worker.call("appends", [[7]], then_again=True)
        after = worker.call("appends", [[]])  # not call_again: the grader mispredicted
    assert after.status == "returned" and after.result == [0]
    assert worker.unused_repeats == 1 and worker.forged == 0 and worker.starts == 2


# -- a child that answers the batch wrongly (its harness rewritten by student code) -----------

LYING_CHILD = r"""
import json, marshal, os, sys, time
requests, replies = int(sys.argv[-3]), int(sys.argv[-2])
mode = sys.argv[-1]
buffer = b""
def read():
    global buffer
    while b"\n" not in buffer:
        buffer += os.read(requests, 65536)
    line, buffer = buffer.split(b"\n", 1)
    return marshal.loads(bytes.fromhex(line.decode()))
def reply(call_id, nonce, ok=True):
    message = {"id": call_id, "nonce": nonce, "ok": ok, "result": 1, "args_after": [[1]]}
    if not ok:
        message = {"id": call_id, "nonce": nonce, "ok": False,
                   "error": {"type": "ValueError", "message": "", "frames": []}}
    os.write(replies, json.dumps(message).encode() + b"\n")
nonce = read()["nonce"]
functions = {"f": {"params": ["x"], "min": 1, "max": 1, "is_function": True}}
os.write(replies, json.dumps({"nonce": nonce, "ready": True, "functions": functions}).encode() + b"\n")
while True:
    request = read()
    then = request.get("then")
    if then is None:
        reply(request["id"], request["nonce"])
    elif mode == "reordered":
        reply(then["id"], then["nonce"])
        reply(request["id"], request["nonce"])
    elif mode == "missing":
        reply(request["id"], request["nonce"])
    elif mode == "extra":
        reply(request["id"], request["nonce"])
        reply(then["id"], then["nonce"])
        reply(then["id"], then["nonce"])
    elif mode == "after_a_raise":
        reply(request["id"], request["nonce"], ok=False)
        reply(then["id"], then["nonce"])
    elif mode == "wrong_id":
        reply(request["id"], request["nonce"])
        reply(request["id"], then["nonce"])
"""


def lying(monkeypatch, tmp_path, mode):
    """Make the worker start LYING_CHILD in ``mode`` instead of the harness (the grader is real)."""
    from menace_course.sandbox import child as worker_module

    script = tmp_path / "lying.py"
    script.write_text(LYING_CHILD)

    def plan(kind, workdir, limits, fds):
        import sys

        argv = [sys.executable, str(script), str(fds[0]), str(fds[1]), mode]
        return LaunchPlan(argv, {}, "process", workdir, fds)

    monkeypatch.setattr(worker_module, "plan_launch", plan)


def test_replies_out_of_order_are_a_forgery_not_answers(monkeypatch, tmp_path):
    lying(monkeypatch, tmp_path, "reordered")
    with Child("", "process", FAST) as worker:
        assert worker.load().status == "ready"
        first = worker.call("f", [[1]], then_again=True)
    assert first.status == "crashed" and first.result is None
    assert worker.forged == 1


def test_a_missing_repeat_reply_is_the_repeats_timeout(monkeypatch, tmp_path):
    lying(monkeypatch, tmp_path, "missing")
    with Child("", "process", FAST) as worker:
        assert worker.load().status == "ready"
        assert worker.call("f", [[1]], then_again=True).status == "returned"
        again = worker.call_again()
    assert again.status == "timeout"


@pytest.mark.parametrize("mode", ["extra", "after_a_raise"])
def test_a_reply_more_than_the_batch_asked_for_is_a_forgery(monkeypatch, tmp_path, mode):
    lying(monkeypatch, tmp_path, mode)
    with Child("", "process", FAST) as worker:
        assert worker.load().status == "ready"
        worker.call("f", [[1]], then_again=True)
        worker.call_again()
        after = worker.call("f", [[1]])  # reads the stray line first
    assert after.status == "crashed" and after.result is None
    assert worker.forged == 1


def test_a_repeat_reply_under_the_first_calls_id_is_refused(monkeypatch, tmp_path):
    lying(monkeypatch, tmp_path, "wrong_id")
    with Child("", "process", FAST) as worker:
        assert worker.load().status == "ready"
        assert worker.call("f", [[1]], then_again=True).status == "returned"
        again = worker.call_again()
    assert again.status == "crashed" and again.result is None


# -- the grader sends the repeat ahead only where the test certainly makes it ------------------


def test_only_a_call_followed_by_expect_unchanged_is_sent_with_its_repeat():
    with started("process") as worker:
        proxy = SubmissionProxy(worker, worker.load().functions)
        token = proxy.activate()
        beads, kept = [7], (1,)
        try:
            got = proxy.appends(beads)
            expect_unchanged()  # fails: appends changes its input
        except Exception:
            pass
        try:
            got = proxy.appends(beads)
            print(got)  # something else first: no repeat ahead
            expect_unchanged()
        except Exception:
            pass
        got = proxy.copies(kept)  # a tuple cannot change: no repeat at all
        expect_unchanged()
        SubmissionProxy.deactivate(token)
    # 3 calls, 2 repeats: the first repeat went with its call, the second alone
    assert worker.requests == 3 + 1
    assert worker.unused_repeats == 0
    assert json.dumps(got) == "[1]"


# -- a child the machine starves is the grader's problem, never the student's timeout ------------


class AlwaysWaiting:
    """A run delay as of a child that never got a CPU: all of its wait was spent waiting."""

    def __init__(self):
        import time

        self.since = time.monotonic()

    def seconds(self):
        import time

        return time.monotonic() - self.since

    def close(self):
        pass


def test_a_call_the_machine_starved_is_the_graders_failure_and_not_charged(monkeypatch):
    from menace_course.sandbox.outcomes import MachineStarved

    limits = Limits(call_seconds=0.2, import_seconds=2, budget_seconds=10)
    with started("process", limits) as worker:
        spent_before = worker.spent
        waiting = AlwaysWaiting()
        monkeypatch.setattr(Child, "_run_delay", lambda self: waiting)
        with pytest.raises(MachineStarved, match="too busy"):
            worker.call("hangs_second_time", [[1]], then_again=True)
            worker.call_again()  # the first call returns (read in time); the repeat spins
        monkeypatch.undo()
        assert worker.dead_functions == set()  # not the function's timeout
        assert worker.spent - spent_before < limits.call_seconds  # the starved wait is not charged
        assert worker.call("appends", [[]]).result == [0]  # a fresh child goes on


def test_a_test_whose_call_was_starved_is_a_grader_error(monkeypatch):
    from menace_course.checking.runner import run_case
    from menace_course.checking.suite import Case
    from menace_course.models import Outcome, TestKind

    def spins(submission):
        submission.hangs_second_time([1])
        submission.hangs_second_time([1])

    case = Case(
        name="t", title="t", kind=TestKind.PROPERTY, is_visible=False, hint=None, points=1.0, run=spins
    )
    limits = Limits(call_seconds=0.2, import_seconds=2, budget_seconds=10)
    with started("process", limits) as worker:
        proxy = SubmissionProxy(worker, worker.load().functions)
        waiting = AlwaysWaiting()
        monkeypatch.setattr(Child, "_run_delay", lambda self: waiting)
        result = run_case(case, proxy)
    assert result.outcome is Outcome.GRADER_ERROR and result.points == 0.0


def test_the_lookahead_sends_ahead_only_the_forms_that_certainly_repeat():
    import sys

    from menace_course.checking import lookahead

    seen = []

    class Recorder:
        def __getattr__(self, name):
            def call(*args):
                seen.append(lookahead.repeat_follows(sys._getframe(1), name))
                return 1

            return call

    def body(submission, beads, square):
        got = submission.after_game(beads, square, "win")
        expect_unchanged()  # certain
        submission.after_game(beads, 6)
        expect_unchanged(hint="floor_at_zero")  # certain
        got = submission.after_game(len(beads))  # an argument that runs code
        expect_unchanged()
        got = list(map(submission.after_game, beads))  # not a call of submission.<function>
        expect_unchanged()
        got = submission.after_game(beads)
        print(got)  # something between
        expect_unchanged()
        got = submission.after_game(beads, 6)
        expect_unchanged(hnt="x")  # a TypeError before any repeat

    token = SubmissionProxy(None, {}).activate()  # expect_unchanged finds no last call: a no-op
    try:
        body(Recorder(), [1], 2)
    except TypeError:
        pass  # expect_unchanged(hnt=...) stops the body, as it would a test
    finally:
        SubmissionProxy.deactivate(token)
    assert seen == [True, True, False, False, False, False]
