"""A property test's calls sent to the child in one batch: the same answers and verdicts as one by one.

The calls a test will make are known ahead (learnt from the reference: ``checking/plan.py``)
and written to the child at once (``Child.send_ahead``); each call the test makes then only
reads its reply. These tests hold a batch to what sending the calls one by one gives: the
same results; a hang, a crash or an oversized reply is exactly that call's, and the calls
after it are not answered; a test that leaves the batch (it stopped early, or made a call
the plan did not have) finds the child as its own calls alone would have left it. The
child is hostile: a child that shrinks its pipes cannot stall a batch, and replies out of
order are a forgery.
"""

from dataclasses import replace
from pathlib import Path

import pytest

from menace_course.authoring.oracle import trace_calls
from menace_course.checking import plan as plans
from menace_course.checking.pipeline import check_submission
from menace_course.checking.suite import call_text, load_suite
from menace_course.course import find_course
from menace_course.limits import Limits
from menace_course.sandbox import child as child_module
from menace_course.sandbox import wire
from menace_course.sandbox.batch import KnownReply, PlannedCall, pack_batch
from menace_course.sandbox.child import Child
from menace_course.sandbox.outcomes import read_reply, refused_for_size

KINDS = [pytest.param("process", id="process"), pytest.param("bwrap", id="bwrap", marks=pytest.mark.bwrap)]
FAST = Limits(call_seconds=0.5, import_seconds=2, budget_seconds=20)

STATEFUL = """
import os
seen = []
def tally(x):
    seen.append(x)
    return list(seen)
def hangs_at_three(n):
    while n == 3:
        pass
    return n
def dies_at_three(n):
    if n == 3:
        os._exit(3)
    return n
def huge_at_three(n):
    return "x" * 200_000 if n == 3 else n
def tally_slowly(x):
    import time
    time.sleep(0.2)
    return tally(x)
def appends(beads):
    beads.append(len(beads))
    return list(beads)
"""


def started(kind, source=STATEFUL, limits=FAST):
    worker = Child(source, kind, limits)
    assert worker.load().status == "ready"
    return worker


def planned(function, *arguments, then_again=False):
    return [PlannedCall.of(function, [argument], then_again) for argument in arguments]


@pytest.mark.parametrize("kind", KINDS)
def test_a_batch_answers_as_the_calls_sent_one_by_one(kind):
    with started(kind) as batched, started(kind) as alone:
        assert batched.send_ahead(planned("tally", 1, 2, 3, 4, 5)) == 5
        got = [batched.call("tally", [n]).result for n in (1, 2, 3, 4, 5)]
        one_by_one = [alone.call("tally", [n]).result for n in (1, 2, 3, 4, 5)]
    assert got == one_by_one == [[1], [1, 2], [1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4, 5]]
    assert (batched.requests, alone.requests) == (1, 5)
    assert (batched.batched, batched.resyncs) == (5, 0)


@pytest.mark.parametrize("kind", KINDS)
def test_a_hang_in_a_batch_is_that_calls_timeout(kind):
    with started(kind) as worker:
        worker.send_ahead(planned("hangs_at_three", 1, 2, 3, 4, 5))
        outcomes = [worker.call("hangs_at_three", [n]) for n in (1, 2, 3, 4, 5)]
        later = worker.call("tally", [7])
    assert [o.status for o in outcomes] == ["returned", "returned", "timeout", "dead", "dead"]
    assert "hangs_at_three" in worker.dead_functions
    assert later.result == [7]  # a fresh child: the batch's calls after the hang were never made
    # charged: two quick calls, the hang's own limit (at most the starvation ceiling), the restart
    assert worker.spent < FAST.call_seconds * 4 + FAST.import_seconds + 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_crash_in_a_batch_is_that_calls_crash(kind):
    with started(kind) as worker:
        worker.send_ahead(planned("dies_at_three", 1, 2, 3, 4))
        outcomes = [worker.call("dies_at_three", [n]) for n in (1, 2, 3, 4)]
    assert [o.status for o in outcomes] == ["returned", "returned", "crashed", "returned"]
    assert outcomes[2].exit_code == 3
    assert worker.starts == 2  # the call after the crash went to a fresh child, alone


@pytest.mark.parametrize("kind", KINDS)
def test_an_oversized_reply_in_a_batch_is_refused_as_that_calls(kind):
    limits = Limits(call_seconds=0.5, import_seconds=2, budget_seconds=20, reply_bytes=50_000)
    with started(kind, limits=limits) as worker:
        worker.send_ahead(planned("huge_at_three", 1, 2, 3, 4))
        outcomes = [worker.call("huge_at_three", [n]) for n in (1, 2, 3, 4)]
    assert [o.status for o in outcomes] == ["returned", "returned", "crashed", "returned"]
    assert refused_for_size(outcomes[2])


@pytest.mark.parametrize("kind", KINDS)
def test_a_test_that_leaves_the_batch_finds_the_child_as_its_own_calls_left_it(kind):
    with started(kind) as worker:
        worker.send_ahead(planned("tally", 1, 2, 3, 4, 5))
        first = [worker.call("tally", [n]).result for n in (1, 2)]
        # the test stops here (a failed check); the child has made the batch's other calls
        next_test = worker.call("tally", [9])
        spent = worker.spent
    assert first == [[1], [1, 2]]
    assert next_test.result == [1, 2, 9]  # not [1, 2, 3, 4, 5, 9]
    assert worker.resyncs == 1 and worker.starts == 2
    assert spent < FAST.call_seconds * 3  # the fresh start and the calls made again are not charged


@pytest.mark.parametrize("kind", KINDS)
def test_a_slow_submission_is_not_made_to_wait_for_its_calls_made_again(kind, monkeypatch):
    monkeypatch.setattr(child_module, "REPLAY_SECONDS", 0.3)
    with started(kind) as worker:
        worker.send_ahead(planned("tally_slowly", 1, 2, 3, 4))
        [worker.call("tally_slowly", [n]) for n in (1, 2, 3)]  # 0.6 s of calls to make again
        deadline = worker.deadline
        next_test = worker.call("tally", [9])
        later_batch = worker.send_ahead(planned("tally", 5, 6))
    # making the three calls again would take longer than what is allowed: a fresh child instead
    assert next_test.result == [9]
    assert worker.resyncs == 1 and later_batch == 0
    assert worker.deadline - deadline == pytest.approx(worker.replayed)  # its hard end moved by as much


@pytest.mark.parametrize("kind", KINDS)
def test_a_batch_not_used_up_is_dropped_before_the_next_one(kind):
    with started(kind) as worker:
        worker.send_ahead(planned("tally", 1, 2, 3))
        worker.call("tally", [1])
        worker.send_ahead(planned("tally", 4, 5))
        got = [worker.call("tally", [n]).result for n in (4, 5)]
    assert got == [[1, 4], [1, 4, 5]]
    assert worker.resyncs == 1


@pytest.mark.parametrize("kind", KINDS)
def test_repeats_in_a_batch_answer_as_call_again_does(kind):
    with started(kind) as worker, started(kind) as alone:
        worker.send_ahead(planned("appends", [7], [8], then_again=True))
        pairs = []
        for beads in ([7], [8]):
            pairs.append((worker.call("appends", [beads]).result, worker.call_again().result))
        expected = []
        for beads in ([7], [8]):
            expected.append((alone.call("appends", [beads]).result, alone.call_again().result))
    assert pairs == expected == [([7, 1], [7, 1, 2]), ([8, 1], [8, 1, 2])]
    assert worker.requests == 1 and worker.resyncs == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_repeat_the_batch_did_not_ask_for_is_made_in_step(kind):
    with started(kind) as worker:
        worker.send_ahead(planned("appends", [7], [8]))
        first = worker.call("appends", [[7]])
        again = worker.call_again()  # after the batch's second call had been made in the child
        second = worker.call("appends", [[8]])
    assert (first.result, again.result, second.result) == ([7, 1], [7, 1, 2], [8, 1])
    assert worker.resyncs == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_child_that_shrinks_its_pipes_cannot_stall_a_batch(kind):
    shrinks = (
        "import fcntl\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ: one page\n"
        "    except OSError:\n"
        "        pass\n"
        "def echo(text):\n"
        "    return text * 2\n"
    )
    calls = [PlannedCall.of("echo", [f"{n:04d}" * 20]) for n in range(300)]
    with started(kind, shrinks) as worker:
        worker.send_ahead(calls)
        outcomes = [worker.call("echo", list(call.args)) for call in calls]
    assert [o.status for o in outcomes] == ["returned"] * 300
    assert outcomes[299].result == "0299" * 40


def test_every_request_of_a_batch_has_a_nonce_of_its_own():
    calls = planned("appends", *([n] for n in range(40)), then_again=True) + planned("tally", *range(40))
    data, sent = pack_batch(calls, last_id=10)
    requests = [wire.unpack(line) for line in data.splitlines()]
    nonces = [r["nonce"] for r in requests] + [r["then"]["nonce"] for r in requests if "then" in r]
    assert len(nonces) == len(set(nonces)) == 120
    assert all(len(n) == 32 and int(n, 16) >= 0 for n in nonces)
    assert [r["id"] for r in requests] == [s.call_id for s in sent] and sent[0].call_id == 11
    assert [(s.nonce, s.then) for s in sent] == [
        (r["nonce"], (r["then"]["id"], r["then"]["nonce"]) if "then" in r else None) for r in requests
    ]


# -- known replies: a reply byte for byte the reference's is not parsed, and only such a one --


@pytest.mark.parametrize(
    ("result", "args_after"),
    [
        ([4, 0, 3], ([4, 0, 3], 2, "win")),
        ((1, 2.5, True, None), ()),
        ({"x": [1, 2], (1, 2): {3, 4}}, (frozenset({"a"}),)),
        ("caf\u00e9 \ud800 \U0001f600", ([], {})),
        (float("inf"), (-0.0, 10**300)),
    ],
)
def test_a_known_reply_reads_as_the_strict_reader_reads_its_bytes(result, args_after):
    known = KnownReply.of(result, args_after)
    assert known is not None
    nonce = "ab" * 16
    line = known.line(7, nonce)
    assert known.outcome() == read_reply(wire.loads(line), 7, nonce)
    assert known.outcome().result is not known.outcome().result  # a fresh copy each time


def test_a_value_that_does_not_cross_as_plain_data_has_no_known_reply():
    assert KnownReply.of(object(), ()) is None
    assert KnownReply.of(10**5000, ()) is None
    assert KnownReply.of([1], (iter([]),)) is None


NEARLY_DOUBLES = """
import sys
def double(n):
    if n == 3:
        return 6.0  # equal to 6, but not the same value
    if n == 4:
        print("four")
    if n == 5:
        sys._current_frames()  # the harness notes it: its reply says so
    return n * 2
"""


@pytest.mark.parametrize("kind", KINDS)
def test_a_reply_unlike_the_known_one_is_read_strictly(kind):
    calls = [PlannedCall.of("double", [n], reply=KnownReply.of(n * 2, (n,))) for n in (1, 2, 3, 4, 5)]
    # the known reply of each is its double, as an int, with nothing printed or noticed
    with started(kind, NEARLY_DOUBLES) as worker, started(kind, NEARLY_DOUBLES) as alone:
        assert worker.send_ahead(calls) == 5
        batched = [worker.call("double", [n]) for n in (1, 2, 3, 4, 5)]
        one_by_one = [alone.call("double", [n]) for n in (1, 2, 3, 4, 5)]
    assert [replace(o, seconds=0) for o in batched] == [replace(o, seconds=0) for o in one_by_one]
    assert type(batched[2].result) is float and batched[3].printed.text == "four\n"
    assert [a.event for a in batched[4].attempts] == ["sys._current_frames"]
    assert worker.known_replies == 2 and alone.known_replies == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_known_repeat_answers_as_call_again_does(kind):
    call = PlannedCall.of("appends", [[7]], then_again=True, reply=KnownReply.of([7, 1], ([7, 1],)))
    calls = [replace(call, again_reply=KnownReply.of([7, 1, 2], ([7, 1, 2],)))]
    with started(kind) as worker:
        worker.send_ahead(calls)
        first, again = worker.call("appends", [[7]]), worker.call_again()
    assert (first.result, first.args_after, again.result) == ([7, 1], ([7, 1],), [7, 1, 2])
    assert worker.known_replies == 2


# -- the plans: learnt from the reference, the calls the real tests make ----------------------


@pytest.fixture(scope="module")
def after_game():
    return load_suite(find_course(Path(__file__).resolve().parents[2]), "after_game")


def test_a_property_tests_plan_is_the_calls_it_makes_on_the_reference(after_game):
    learnt = plans.learn_all(after_game)
    reference = after_game.challenge.folder.parents[1] / "reference" / "after_game.py"
    made = dict(trace_calls(reference, after_game, "process"))
    properties = {"agrees_with_michies_rules_on_any_box", "never_a_negative_count", "never_changes_its_input"}
    assert set(learnt) == properties
    for name, calls in learnt.items():
        assert tuple(call_text(c.function, c.args) for c in calls) == made[name]
    assert all(c.then_again for c in learnt["never_changes_its_input"])


def test_a_plan_file_not_sealed_with_the_key_is_learnt_again(after_game):
    path = plans._plan_file(after_game)
    if path is None:
        pytest.skip("no trusted cache folder here")
    path.write_bytes(b"0" * 64 + b"\n" + b"not ours")
    plans._plans.clear()
    assert plans.plans_for(after_game) == plans.learn_all(after_game)
    assert plans._read(path) == plans.learn_all(after_game)  # and it was written again, sealed


def _check_counting(path, suite, monkeypatch, batch):
    monkeypatch.setenv("MENACE_BATCH", batch)
    counted = []
    real_close = Child.close

    def close(self):
        counted.append((self.requests, self.batched, self.resyncs, self.known_replies))
        real_close(self)

    monkeypatch.setattr(Child, "close", close)
    report = check_submission(path, suite, "process")
    monkeypatch.setattr(Child, "close", real_close)
    verdicts = [(t.name, t.outcome, t.points, t.detail and t.detail.problem) for t in report.tests]
    return verdicts, counted[0]


def test_a_check_sends_each_property_tests_calls_in_one_batch(after_game, monkeypatch):
    reference = after_game.challenge.folder.parents[1] / "reference" / "after_game.py"
    batched, (trips, answered_ahead, _, known) = _check_counting(reference, after_game, monkeypatch, "on")
    alone, (trips_alone, none_ahead, _, none_known) = _check_counting(
        reference, after_game, monkeypatch, "off"
    )
    assert batched == alone
    assert answered_ahead == 305 and none_ahead == 0
    assert trips < 30 < 300 < trips_alone
    # every batched call's reply, and its repeat's, was the reference's: read by its bytes
    assert known == 305 + sum(c.then_again for calls in plans.learn_all(after_game).values() for c in calls)
    assert none_known == 0


#: Right on every test but the property tests (a win on 5 beads adds 2), and it keeps
#: count of its calls: after 150 it stops changing anything. Its verdicts depend on how many
#: calls it really answered, so a child left with the batch's extra calls would differ.
SUBTLE_AND_STATEFUL = """
calls = 0
def after_game(beads, square, result):
    global calls
    calls += 1
    new = list(beads)
    if calls > 150:
        return new
    if result == "win":
        new[square] += 2 if beads[square] == 5 else 3
    elif result == "draw":
        new[square] += 1
    elif new[square] > 0:
        new[square] -= 1
    return new
"""


def test_a_submission_that_fails_inside_a_batch_gets_the_verdicts_of_one_by_one(
    after_game, monkeypatch, tmp_path
):
    path = tmp_path / "after_game.py"
    path.write_text(SUBTLE_AND_STATEFUL)
    batched, (_, answered_ahead, resyncs, _) = _check_counting(path, after_game, monkeypatch, "on")
    one_by_one, _ = _check_counting(path, after_game, monkeypatch, "off")
    assert batched == one_by_one
    assert answered_ahead > 0 and resyncs == 1  # it left one batch; no batch after a failure
    assert [v[1].value for v in batched].count("passed") not in (0, len(batched))


@pytest.mark.slow
def test_every_wrong_after_game_gets_the_same_verdicts_with_batches(after_game, monkeypatch):
    wrong = sorted((after_game.challenge.folder / "wrong").glob("*.py"))
    assert len(wrong) >= 10
    for path in wrong:
        with_batches, _ = _check_counting(path, after_game, monkeypatch, "on")
        one_by_one, _ = _check_counting(path, after_game, monkeypatch, "off")
        assert with_batches == one_by_one, path.name
