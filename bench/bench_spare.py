"""What the spare sandbox saves a check: a grader that starts the next child ahead, beside one that does not.

Two pools of one grader process each (:mod:`menace_course.pool`), as the check service's
graders run: one keeps a spare (``sandbox/spare.py``, the default), the other is told not
to. Each checks the after_game reference answer through the service's own path
(``dispatch.grading.check_in_grader``), the two taking turns, with a pause between checks
as a student's think time gives (the spare starts in it). Printed: the wall time of a
check as its caller sees it (median and p90), and the ratio. Nothing is asserted.

    python3 bench/bench_spare.py [--checks 40] [--pause 0.2] [--sandbox bwrap]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from menace_course import pool  # noqa: E402
from menace_course.models import SandboxKind  # noqa: E402
from menace_course.service.dispatch.base import CheckJob  # noqa: E402
from menace_course.service.dispatch.grading import check_in_grader, ready  # noqa: E402

SOURCE = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")


def ready_without_spares(course_root: str) -> None:
    """A grader's start-up that turns the spare off (for this comparison only)."""
    pool._serving = False  # between_tasks() then registers nothing: no spare is kept
    ready(course_root)


def check(task: tuple[str, SandboxKind]) -> str:
    course_root, sandbox = task
    job = CheckJob(attempt_id="bench", challenge="after_game", filename="after_game.py", source=SOURCE)
    return check_in_grader(course_root, sandbox, job).status.value


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=40, help="checks per grader")
    parser.add_argument("--pause", type=float, default=0.2, help="seconds between checks")
    parser.add_argument("--sandbox", default="bwrap", choices=("bwrap", "process"))
    options = parser.parse_args()
    import bench_spare  # this file as a module: what the grader processes unpickle by name

    course = str(REPO)
    task = (course, options.sandbox)
    times: dict[str, list[float]] = {"spare": [], "no spare": []}
    with (
        pool.Graders(1, ready=bench_spare.ReadyWith(course)) as with_spare,
        pool.Graders(1, ready=bench_spare.ReadyWithout(course)) as without,
    ):
        for graders in (with_spare, without):
            graders.await_ready()
            graders.call(bench_spare.check, task)  # warm: the suite's examples, the first spare
        for _ in range(options.checks):
            for name, graders in (("spare", with_spare), ("no spare", without)):
                time.sleep(options.pause)
                started = time.perf_counter()
                status = graders.call(bench_spare.check, task)
                times[name].append(time.perf_counter() - started)
                if status != "checked":
                    sys.exit(f"the reference answer was not checked: {status}")
    print(f"checks: {options.checks} per grader, pause {options.pause} s, sandbox {options.sandbox}")
    for name, values in times.items():
        print(
            f"  {name:9}  median {statistics.median(values) * 1000:6.1f} ms"
            f"  p90 {percentile(values, 0.9) * 1000:6.1f} ms"
        )
    ratio = statistics.median(times["spare"]) / statistics.median(times["no spare"])
    print(f"  ratio spare / no spare (medians): {ratio:.2f} x")


class ReadyWith:
    """The service's grader start-up, for ``course`` (picklable)."""

    def __init__(self, course: str) -> None:
        self.course = course

    def __call__(self) -> None:
        ready(self.course)


class ReadyWithout(ReadyWith):
    def __call__(self) -> None:
        ready_without_spares(self.course)


if __name__ == "__main__":
    main()
