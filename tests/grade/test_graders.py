"""The one pool of grader processes: every task gets exactly one result, whatever it does."""

from __future__ import annotations

import os
import time

import pytest

from menace_course.pool import GraderLost, Graders, Lost


def square_or_die(n: int) -> int:
    if n == 3:
        os._exit(9)  # the grader process dies, as if the system killed it
    if n == 6:
        time.sleep(60)  # hangs (as a submission that blocks the grader would)
    if n == 7:
        raise TypeError("a bug of ours")
    return n * n


def said(n: int, lost: GraderLost) -> str:
    return f"{lost.reason.value}: {lost.detail.strip().splitlines()[-1]}"


def test_every_task_gets_one_result_in_parallel() -> None:
    with Graders(2) as graders:
        results = list(graders.run(square_or_die, [1, 2, 4, 5], on_lost=said))
    assert sorted(results) == [1, 4, 16, 25]


@pytest.mark.slow
def test_a_crash_a_hang_and_a_bug_each_cost_one_task_and_the_rest_still_run() -> None:
    started = time.monotonic()
    with Graders(2) as graders:
        results = list(graders.run(square_or_die, range(1, 10), on_lost=said, seconds=lambda n: 3.0))
    assert len(results) == 9
    assert sorted(r for r in results if isinstance(r, int)) == [1, 4, 16, 25, 64, 81]
    assert "died: the grader process died (exit code 9)" in results
    assert "raised: TypeError: a bug of ours" in results
    assert "timeout: still running after 3 s, so its grader was stopped" in results
    assert time.monotonic() - started < 50, "the hanging task was not waited for (it sleeps 60 s)"


def test_the_watchdog_clock_starts_after_the_warm_up() -> None:
    with Graders(1) as graders:
        results = list(graders.run(square_or_die, [2], on_lost=said, seconds=lambda n: 1.0, warm=_slow_warm))
    assert results == [4]


def _slow_warm(n: int) -> None:
    time.sleep(1.5)  # longer than the task's limit: it must not count


def _broken_course() -> None:
    raise RuntimeError("challenges/after_game/challenge.toml: no such key 'points'")


def test_a_grader_whose_start_up_fails_refuses_and_says_why() -> None:
    with Graders(1, ready=_broken_course) as graders:
        with pytest.raises(GraderLost) as lost:
            graders.await_ready()
    assert lost.value.reason is Lost.REFUSED
    assert str(lost.value) == (
        "the grader process could not start: challenges/after_game/challenge.toml: no such key 'points'"
    )


def test_a_grader_that_dies_is_replaced_and_the_next_task_runs() -> None:
    with Graders(1) as graders:
        with pytest.raises(GraderLost) as lost:
            graders.call(square_or_die, 3)
        assert lost.value.reason is Lost.DIED
        assert graders.call(square_or_die, 4) == 16


def where_colorsys_comes_from(_: int) -> str:
    import colorsys  # a module of the standard library that nothing imported yet

    return colorsys.__file__


def test_a_grader_never_imports_from_the_folder_it_was_started_in(tmp_path, monkeypatch) -> None:
    (tmp_path / "colorsys.py").write_text("raise SystemExit('a student file was imported by the grader')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # as `python -m menace_course grade` run there has it
    with Graders(1) as graders:
        assert not graders.call(where_colorsys_comes_from, 0).startswith(str(tmp_path))
