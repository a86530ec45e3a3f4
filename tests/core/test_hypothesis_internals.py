"""Guard: the private parts of hypothesis that menace reads are still there, as they were.

``checking/replay.py`` replays a property test's generated examples and needs the test's
strategies (``test.hypothesis._given_kwargs``), its body (``test.hypothesis.inner_test``),
its explicit examples (``hypothesis_explicit_examples``) and its settings
(``_hypothesis_internal_use_settings``); ``checking/testing.py`` sets the last one, and
reads ``_hypothesis_internal_settings_applied`` to keep an author's own ``@settings``.
pyproject.toml caps hypothesis below the next major version; if one of these fails after
an upgrade within that range, pin hypothesis below the version that changed and adapt
those two modules.
"""

from __future__ import annotations

import hypothesis
from hypothesis import example, given, settings
from hypothesis import strategies as st

from menace_course.checking.replay import can_replay, generate
from menace_course.checking.testing import GRADING_SETTINGS, with_grading_settings

ADVICE = (
    f"hypothesis {hypothesis.__version__} changed an internal attribute menace reads "
    "(see this test's docstring): pin hypothesis below this version in pyproject.toml, "
    "or adapt menace_course/checking/replay.py and testing.py"
)


@example(n=7)
@given(n=st.integers(0, 3))
def property_test(submission, n):
    assert n >= 0


@settings(max_examples=5)
@given(n=st.integers(0, 3))
def with_own_settings(submission, n):
    assert n >= 0


def test_a_given_test_keeps_its_strategies_body_and_explicit_examples():
    inner = getattr(property_test, "hypothesis", None)
    assert inner is not None, ADVICE
    assert set(getattr(inner, "_given_kwargs", {})) == {"n"}, ADVICE
    assert callable(getattr(inner, "inner_test", None)), ADVICE
    explicit = getattr(property_test, "hypothesis_explicit_examples", None)
    assert explicit is not None and [dict(e.kwargs) for e in explicit] == [{"n": 7}], ADVICE
    assert can_replay(property_test), ADVICE


def test_settings_are_kept_where_menace_reads_and_writes_them():
    assert isinstance(getattr(property_test, "_hypothesis_internal_use_settings", None), settings), ADVICE
    assert getattr(with_own_settings, "_hypothesis_internal_settings_applied", False) is True, ADVICE
    with_grading_settings(with_own_settings)
    applied = with_own_settings._hypothesis_internal_use_settings
    assert applied.max_examples == 5 and applied.derandomize is True, ADVICE
    for key, value in GRADING_SETTINGS.items():
        got = getattr(applied, key)
        assert (list(got) if isinstance(got, tuple) else got) == value, (key, ADVICE)


def test_replay_generates_the_explicit_examples_first_then_the_same_examples_every_time():
    with_grading_settings(property_test)
    first, second = generate(property_test), generate(property_test)
    assert first[0] == {"n": 7} and first == second, ADVICE


def test_hypothesis_is_below_the_capped_major_version():
    assert int(hypothesis.__version__.split(".")[0]) == 6, ADVICE
