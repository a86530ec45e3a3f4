"""Stored examples replay without hypothesis, and give the same verdicts as with it (issue 14, speed).

A hidden test module is imported with the hypothesis stand-in when every property test's
examples are stored (``checking/standin.py``); otherwise, or when it asks for more than the
stand-in answers, with hypothesis itself. These tests collect the same module both ways
(the first collection of a new cache generates the examples with hypothesis, the second
replays them with the stand-in) and compare what a student would be told.
"""

from __future__ import annotations

import builtins
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from menace_course.checking.replay import ExampleStore
from menace_course.checking.standin import NeedsHypothesis, Strategy, standin_import
from menace_course.checking.suite import _module_cases
from menace_course.checking.testing import Mismatch


class Doubler:
    """A submission, as the grader's proxy presents it, whose ``double`` is right below ``wrong_from``."""

    def __init__(self, wrong_from: int = 10**9) -> None:
        self.wrong_from = wrong_from
        self.calls: list[int] = []
        self.last_call: Any = None

    def double(self, n: int) -> int:
        self.calls.append(n)
        return 2 * n if n < self.wrong_from else 2 * n + 1


def write_tests(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hidden" / "test_double.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def collect_twice(path: Path, tmp_path: Path) -> tuple[list[Any], list[Any], bool]:
    """The module's cases from a new cache (hypothesis), then from the stored examples.

    Also says whether the second collection used the stand-in.
    """
    references = tmp_path
    store = ExampleStore("suite1")
    first = _module_cases(path, store, references, standin=False)
    store.save()
    stored = ExampleStore("suite1")
    try:
        second = _module_cases(path, stored, references, standin=True)
        used_standin = True
    except NeedsHypothesis:
        second = _module_cases(path, stored, references, standin=False)
        used_standin = False
    return first, second, used_standin


def verdicts(cases: list[Any], submission: Doubler) -> list[tuple[str, str]]:
    """Each case's name and what became of it: passed, or the kind of failure."""
    out = []
    for case in cases:
        try:
            case.run(submission)
            out.append((case.name, "passed"))
        except Exception as error:
            out.append((case.name, type(error).__name__))
    return out


PLAIN_MODULE = """
    from hypothesis import example, given, settings, HealthCheck
    from hypothesis import strategies as st
    from menace_course import expect_equal, hint

    small = st.integers(0, 20)
    evens = small.map(lambda n: 2 * n) | st.just(0)

    @st.composite
    def pairs(draw):
        return (draw(small), draw(small))

    @hint("doubles")
    def test_double_of_three(submission):
        \"\"\"Three doubled is six.\"\"\"
        expect_equal(submission.double(3), 6)

    @settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
    @given(n=small, pair=pairs())
    @example(n=20, pair=(0, 0))
    def test_doubles_any_small_number(submission, n, pair):
        \"\"\"Doubles any number up to 20.\"\"\"
        expect_equal(submission.double(n), 2 * n)

    @given(n=evens)
    def test_doubles_even_numbers(submission, n):
        \"\"\"Doubles even numbers too.\"\"\"
        expect_equal(submission.double(n), 2 * n)
"""


def test_stored_examples_replay_with_the_standin_and_give_the_same_verdicts(tmp_path, cache_folder):
    path = write_tests(tmp_path, PLAIN_MODULE)
    first, second, used_standin = collect_twice(path, tmp_path)
    assert used_standin
    shown = [(c.name, c.title, c.kind, c.hint, c.points, c.is_visible) for c in first]
    assert shown == [(c.name, c.title, c.kind, c.hint, c.points, c.is_visible) for c in second]
    for wrong_from in (10**9, 0, 7, 20, 30):
        with_hypothesis, replayed = Doubler(wrong_from), Doubler(wrong_from)
        assert verdicts(first, with_hypothesis) == verdicts(second, replayed), wrong_from
        assert with_hypothesis.calls == replayed.calls  # the same examples, in the same order
    assert verdicts(second, Doubler(7)) == [
        ("double_of_three", "passed"),
        ("doubles_any_small_number", "Mismatch"),
        ("doubles_even_numbers", "Mismatch"),
    ]


def test_the_standin_module_is_kept_apart_from_hypothesis_and_from_the_plain_import(tmp_path, cache_folder):
    path = write_tests(tmp_path, PLAIN_MODULE)
    collect_twice(path, tmp_path)
    standin = [m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == str(path)]
    assert len(standin) == 2  # one imported with hypothesis, one with the stand-in
    real, replay = sorted(standin, key=lambda m: m.__name__.endswith("_standin_import"))
    assert real.st.__name__ == "hypothesis.strategies"
    assert isinstance(replay.small, Strategy)
    assert "_standin_import" in replay.__name__ and "_standin_import" not in real.__name__


def test_an_example_the_body_rejects_with_assume_is_skipped_not_failed(tmp_path, cache_folder):
    path = write_tests(
        tmp_path,
        """
        from hypothesis import assume, given
        from hypothesis import strategies as st
        from menace_course import expect_equal

        @given(n=st.integers(0, 50))
        def test_doubles_even_numbers(submission, n):
            assume(n % 2 == 0)
            expect_equal(submission.double(n), 2 * n)
        """,
    )
    first, second, used_standin = collect_twice(path, tmp_path)
    assert used_standin
    right, replayed_right = Doubler(), Doubler()
    assert verdicts(first, right) == verdicts(second, replayed_right) == [("doubles_even_numbers", "passed")]
    assert right.calls == replayed_right.calls and all(n % 2 == 0 for n in right.calls)
    assert right.calls  # the even examples were checked, the odd ones skipped


def test_a_module_that_needs_more_than_the_standin_is_graded_with_hypothesis(tmp_path, cache_folder):
    path = write_tests(
        tmp_path,
        """
        from hypothesis import find, given
        from hypothesis import strategies as st
        from menace_course import expect_equal

        SMALLEST_ODD = find(st.integers(1, 99), lambda n: n % 2 == 1)

        @given(n=st.integers(0, 20))
        def test_doubles_small_numbers(submission, n):
            expect_equal(submission.double(n + SMALLEST_ODD), 2 * (n + SMALLEST_ODD))
        """,
    )
    first, second, used_standin = collect_twice(path, tmp_path)
    assert not used_standin
    assert (
        verdicts(first, Doubler(5)) == verdicts(second, Doubler(5)) == [("doubles_small_numbers", "Mismatch")]
    )


def test_a_test_body_that_needs_hypothesis_runs_with_it(tmp_path, cache_folder):
    path = write_tests(
        tmp_path,
        """
        from menace_course import expect_equal

        def test_doubles_the_smallest_odd_number(submission):
            from hypothesis import find, strategies as st
            n = find(st.integers(1, 99), lambda n: n % 2 == 1)
            expect_equal(submission.double(n), 2 * n)
        """,
    )
    first, second, used_standin = collect_twice(path, tmp_path)
    assert used_standin  # nothing at the top needs hypothesis; the body does
    assert verdicts(second, Doubler()) == [("doubles_the_smallest_odd_number", "passed")]
    assert verdicts(second, Doubler(0)) == verdicts(first, Doubler(0))
    assert verdicts(second, Doubler(0)) == [("doubles_the_smallest_odd_number", "Mismatch")]


def test_a_visible_failure_is_still_shrunk_to_the_smallest_example(tmp_path, cache_folder):
    path = write_tests(
        tmp_path,
        """
        from hypothesis import given
        from hypothesis import strategies as st
        from menace_course import expect_equal, visible

        @visible
        @given(n=st.integers(0, 1000))
        def test_doubles_any_number(submission, n):
            expect_equal(submission.double(n), 2 * n)
        """,
    )
    _, replayed, used_standin = collect_twice(path, tmp_path)
    assert used_standin
    with pytest.raises(Mismatch) as failed:
        replayed[0].run(Doubler(wrong_from=37))
    assert failed.value.expected == 74  # 37, the smallest failing number, not the first one tried


def test_the_standin_refuses_what_only_hypothesis_can_answer():
    namespace: dict[str, Any] = {"__builtins__": {**vars(builtins), "__import__": standin_import}}
    exec("from hypothesis import strategies as st\nboxes = st.lists(st.integers(0, 6))", namespace)
    boxes = namespace["boxes"]
    for use in (lambda: bool(boxes), lambda: list(boxes), lambda: boxes.example()):
        with pytest.raises(NeedsHypothesis):
            use()
    for source in (
        "import hypothesis.extra.numpy",
        "from hypothesis import find",
        "from hypothesis import given\n@given(1)\ndef f(x): pass",
    ):
        with pytest.raises(NeedsHypothesis):
            exec(source, dict(namespace))


def test_the_hypothesis_version_is_read_again_when_its_folder_changes(tmp_path, monkeypatch):
    import importlib.machinery
    import os

    from menace_course.checking import replay

    site = tmp_path / "site-packages"
    (site / "hypothesis").mkdir(parents=True)
    (site / "hypothesis" / "__init__.py").write_text("")
    (site / "hypothesis-1.2.3.dist-info").mkdir()
    spec = importlib.machinery.ModuleSpec("hypothesis", None, origin=str(site / "hypothesis" / "__init__.py"))
    monkeypatch.setattr(replay.importlib.util, "find_spec", lambda name: spec)
    monkeypatch.setattr(replay, "_read_from", None)
    os.utime(site, ns=(1_000_000_000, 1_000_000_000))
    assert replay.hypothesis_version() == "1.2.3"
    (site / "hypothesis-1.2.3.dist-info").rename(site / "hypothesis-1.2.4.dist-info")  # pip upgraded it
    os.utime(site, ns=(2_000_000_000, 2_000_000_000))
    assert replay.hypothesis_version() == "1.2.4"
