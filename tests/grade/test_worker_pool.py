"""The pool of worker processes: every task gets a result, even when a worker process dies."""

from __future__ import annotations

import os

from menace_course.grading.batch import Batch


def square_or_die(task: dict) -> dict:
    if task["n"] == 3:
        os._exit(9)  # the worker process dies, as if the system killed it
    return {"n": task["n"], "square": task["n"] ** 2}


def crashed(task: dict) -> dict:
    return {"n": task["n"], "crashed": True}


def test_every_task_gets_one_result_in_parallel() -> None:
    with Batch(jobs=2) as batch:
        results = list(batch.run(square_or_die, [{"n": n} for n in (1, 2, 4, 5)], on_crash=crashed))
    assert sorted(r["square"] for r in results) == [1, 4, 16, 25]


def test_a_task_that_kills_its_worker_is_found_out_and_the_rest_still_run() -> None:
    with Batch(jobs=2) as batch:
        results = list(batch.run(square_or_die, [{"n": n} for n in range(1, 9)], on_crash=crashed))
    by_n = {r["n"]: r for r in results}
    assert sorted(by_n) == list(range(1, 9)) and len(results) == 8
    assert by_n[3] == {"n": 3, "crashed": True}
    assert all(by_n[n]["square"] == n * n for n in by_n if n != 3)
