"""A planned test whose replies are all the reference's passes without its code running, and only then.

Only for a test module that says its tests share no state (``TESTS_SHARE_NO_STATE``),
which ``menace validate`` proves (``tests/authoring/test_authoring_validate.py``). The
child still makes every call, so a submission's own state is as it would be; reading
stops at the first reply that is not the known one, and the test's code then runs, taking
the replies read so far as its own calls make them: the same outcomes, charges and
verdicts as when it reads them itself. A test that makes another call instead finds the
child as its own calls left it, and is charged nothing for the calls it did not make.
"""

from dataclasses import replace
from pathlib import Path

import pytest

from menace_course.authoring.state import state_of
from menace_course.checking.pipeline import check_submission
from menace_course.checking.proxy import SubmissionProxy
from menace_course.checking.suite import load_suite
from menace_course.course import find_course
from menace_course.sandbox.batch import KnownReply, PlannedCall
from tests.core.test_batched_calls import FAST, KINDS, NEARLY_DOUBLES, SUBTLE_AND_STATEFUL, started


def known(function, answers, then_again=False):
    """Planned calls of ``function`` on each argument, each with the reply ``answers`` gives it."""
    return [
        PlannedCall.of(function, [argument], then_again, reply=KnownReply.of(result, (argument,)))
        for argument, result in answers
    ]


def bare(outcomes):
    return [replace(outcome, seconds=0) for outcome in outcomes]


@pytest.mark.parametrize("kind", KINDS)
def test_replies_all_known_are_read_without_the_tests_calls(kind):
    calls = known("tally", [(1, [1]), (2, [1, 2]), (3, [1, 2, 3])])
    with started(kind) as worker, started(kind) as alone:
        assert worker.send_ahead(calls) == 3
        outcomes = worker.read_known()
        after = worker.call("tally", [4]).result  # the child made all three calls
        one_by_one = [alone.call("tally", [n]) for n in (1, 2, 3)]
    assert outcomes is not None and bare(outcomes) == bare(one_by_one)
    assert after == [1, 2, 3, 4]
    assert worker.known_replies == 3 and worker.resyncs == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_reply_not_known_stops_the_reading_and_the_test_gets_what_one_by_one_gives(kind):
    calls = known("double", [(n, n * 2) for n in (1, 2, 3, 4, 5)])
    with started(kind, NEARLY_DOUBLES) as worker, started(kind, NEARLY_DOUBLES) as alone:
        worker.send_ahead(calls)
        assert worker.read_known() is None  # 6.0 for 6: read strictly, and the reading stops
        assert worker.known_replies == 2
        taken = [worker.call("double", [n]) for n in (1, 2, 3, 4, 5)]
        one_by_one = [alone.call("double", [n]) for n in (1, 2, 3, 4, 5)]
    assert bare(taken) == bare(one_by_one)
    assert type(taken[2].result) is float and taken[3].printed.text == "four\n"
    assert worker.resyncs == 0 and worker.requests == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_hang_read_ahead_is_the_timeout_of_the_call_that_makes_it(kind):
    calls = known("hangs_at_three", [(n, n) for n in (1, 2, 3, 4, 5)])
    with started(kind) as worker:
        worker.send_ahead(calls)
        assert worker.read_known() is None
        outcomes = [worker.call("hangs_at_three", [n]) for n in (1, 2, 3, 4, 5)]
        later = worker.call("tally", [7])
    assert [o.status for o in outcomes] == ["returned", "returned", "timeout", "dead", "dead"]
    assert "hangs_at_three" in worker.dead_functions
    assert later.result == [7]
    assert worker.spent < FAST.call_seconds * 4 + FAST.import_seconds + 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_test_that_makes_another_call_is_not_charged_for_the_replies_read_ahead(kind):
    calls = known("hangs_at_three", [(n, n) for n in (1, 2, 3, 4)])
    with started(kind) as worker:
        worker.send_ahead(calls)
        assert worker.read_known() is None  # it read 1, 2 and the hang at 3
        assert "hangs_at_three" in worker.dead_functions
        first = worker.call("hangs_at_three", [1])
        other = worker.call("hangs_at_three", [7])  # not the call the plan had: the test left it
        spent = worker.spent
    assert (first.status, other.status, other.result) == ("returned", "returned", 7)
    assert "hangs_at_three" not in worker.dead_functions  # the hang was never the test's call
    assert worker.resyncs == 1
    assert spent < FAST.call_seconds  # two quick calls: not the hang's limit


@pytest.mark.parametrize("kind", KINDS)
def test_a_test_that_leaves_the_replies_read_ahead_finds_the_child_as_its_calls_left_it(kind):
    calls = known("tally", [(1, [1]), (2, [1, 2]), (3, [9])])  # the reference's third reply differs
    with started(kind) as worker:
        worker.send_ahead(calls)
        assert worker.read_known() is None
        assert worker.call("tally", [1]).result == [1]
        # the test stops here; the next test's call is answered by a child that made only tally(1)
        assert worker.call("tally", [5]).result == [1, 5]
    assert worker.resyncs == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_known_repeat_is_read_with_its_call(kind):
    call = PlannedCall.of("appends", [[7]], then_again=True, reply=KnownReply.of([7, 1], ([7, 1],)))
    calls = [replace(call, again_reply=KnownReply.of([7, 1, 2], ([7, 1, 2],)))]
    with started(kind) as worker:
        worker.send_ahead(calls)
        outcomes = worker.read_known()
    assert outcomes is not None and [o.result for o in outcomes] == [[7, 1]]
    assert worker.known_replies == 2


# -- checks: the same verdicts, with the tests' code skipped only where it would pass -----------


@pytest.fixture(scope="module")
def after_game():
    return load_suite(find_course(Path(__file__).resolve().parents[2]), "after_game")


def _check(path, suite, monkeypatch, skip="on"):
    """The verdicts of a check, and how many tests passed on known replies alone."""
    monkeypatch.setenv("MENACE_SKIP_KNOWN", skip)
    skipped = []
    real = SubmissionProxy.read_known

    def read_known(self, plan):
        answered = real(self, plan)
        skipped.append(answered)
        return answered

    monkeypatch.setattr(SubmissionProxy, "read_known", read_known)
    report = check_submission(path, suite, "process")
    monkeypatch.setattr(SubmissionProxy, "read_known", real)
    verdicts = [(t.name, t.outcome, t.points, t.detail and t.detail.problem, t.hint) for t in report.tests]
    return verdicts, sum(skipped)


def test_the_reference_passes_its_property_tests_on_known_replies_alone(after_game, monkeypatch):
    reference = after_game.challenge.folder.parents[1] / "reference" / "after_game.py"
    skipping, skipped = _check(reference, after_game, monkeypatch)
    running, none_skipped = _check(reference, after_game, monkeypatch, skip="off")
    assert skipping == running and all(v[1].value == "passed" for v in skipping)
    assert (skipped, none_skipped) == (3, 0)


def test_a_module_that_does_not_say_its_tests_share_no_state_runs_every_test(after_game, monkeypatch):
    reference = after_game.challenge.folder.parents[1] / "reference" / "after_game.py"
    unsaid = replace(after_game, cases=tuple(replace(c, shares_no_state=False) for c in after_game.cases))
    verdicts, skipped = _check(reference, unsaid, monkeypatch)
    assert skipped == 0 and all(v[1].value == "passed" for v in verdicts)


def test_a_submission_that_goes_wrong_partway_gets_the_verdicts_of_running_every_test(
    after_game, monkeypatch, tmp_path
):
    path = tmp_path / "after_game.py"
    path.write_text(SUBTLE_AND_STATEFUL)
    skipping, _ = _check(path, after_game, monkeypatch)
    running, _ = _check(path, after_game, monkeypatch, skip="off")
    assert skipping == running
    assert [v[1].value for v in skipping].count("passed") not in (0, len(skipping))


@pytest.mark.slow
def test_every_wrong_after_game_gets_the_same_verdicts_with_known_tests_skipped(after_game, monkeypatch):
    wrong = sorted((after_game.challenge.folder / "wrong").glob("*.py"))
    assert len(wrong) >= 10
    for path in wrong:
        skipping, _ = _check(path, after_game, monkeypatch)
        running, _ = _check(path, after_game, monkeypatch, skip="off")
        assert skipping == running, path.name


# -- what validate compares: a module's state, followed where a test could leave something ------


def test_the_state_of_a_module_shows_what_a_test_leaves_behind(tmp_path):
    import functools
    import types
    import weakref

    module = types.ModuleType("tests_under_test")
    exec(
        "import functools, weakref\n"
        "SEEN = []\n"
        "class Box:\n    pass\n"
        "BOX = Box()\n"
        "def remember(x, kept=[]):\n    kept.append(x)\n"
        "def counter():\n    count = [0]\n    def step():\n        count[0] += 1\n    return step\n"
        "STEP = counter()\n"
        "ANSWERS = weakref.WeakKeyDictionary()\n"
        "@functools.cache\ndef pure(n):\n    return n * 2\n",
        vars(module),
    )
    key = type("Key", (), {})()
    changes = {
        "SEEN": lambda: module.SEEN.append(1),
        "BOX": lambda: setattr(module.BOX, "note", {"x": [1]}),
        "remember": lambda: module.remember(3),
        "STEP": lambda: module.STEP(),
        "ANSWERS": lambda: module.ANSWERS.__setitem__(key, [1]),
    }
    for name, change in changes.items():
        before = state_of(module)
        change()
        after = state_of(module)
        assert [n for n in before if before[n] != after[n]] == [name]
    before = state_of(module)
    module.pure(4)  # a cache of a pure function is not followed (it has no public view)
    assert state_of(module) == before
    assert isinstance(module.pure, functools._lru_cache_wrapper) and weakref
