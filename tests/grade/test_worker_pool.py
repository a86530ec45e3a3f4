"""The one pool of worker processes: every task gets exactly one result, whatever it does."""

from __future__ import annotations

import os
import time

import pytest

from menace_course.pool import WorkerPool


def square_or_die(n: int) -> int:
    if n == 3:
        os._exit(9)  # the worker process dies, as if the system killed it
    if n == 6:
        time.sleep(60)  # hangs (as a submission that blocks the grader would)
    if n == 7:
        raise TypeError("a bug of ours")
    return n * n


def crashed(n: int, why: str) -> str:
    return f"crashed: {why.strip().splitlines()[-1]}"


def stuck(n: int, seconds: float) -> str:
    return f"stopped after {seconds:g} s"


def test_every_task_gets_one_result_in_parallel() -> None:
    with WorkerPool(jobs=2) as pool:
        results = list(pool.run(square_or_die, [1, 2, 4, 5], on_crash=crashed))
    assert sorted(results) == [1, 4, 16, 25]


@pytest.mark.slow
def test_a_crash_a_hang_and_a_bug_each_cost_one_task_and_the_rest_still_run() -> None:
    started = time.monotonic()
    with WorkerPool(jobs=2) as pool:
        results = list(
            pool.run(square_or_die, range(1, 10), on_crash=crashed, on_timeout=stuck, seconds=lambda n: 3.0)
        )
    assert len(results) == 9
    assert sorted(r for r in results if isinstance(r, int)) == [1, 4, 16, 25, 64, 81]
    assert "crashed: the worker process grading it died, twice" in results
    assert "crashed: TypeError: a bug of ours" in results
    assert "stopped after 3 s" in results
    assert time.monotonic() - started < 50, "the hanging task was not waited for (it sleeps 60 s)"


def test_the_watchdog_clock_starts_after_the_warm_up() -> None:
    with WorkerPool(jobs=1) as pool:
        results = list(
            pool.run(
                square_or_die, [2], on_crash=crashed, on_timeout=stuck, seconds=lambda n: 1.0, warm=_slow_warm
            )
        )
    assert results == [4]


def _slow_warm(n: int) -> None:
    time.sleep(1.5)  # longer than the task's limit: it must not count
