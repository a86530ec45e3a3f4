"""CPU one check costs, for every challenge: the grader's process and its sandboxes, from the kernel.

Each challenge is checked ``--checks`` times (its reference answer, in one grader process,
after one check to warm the caches), in a cpuacct cgroup of its own (cgroup v1, as this
machine has it): the kernel counts the CPU of every process in it, the grader and every
bubblewrap and sandboxed Python, killed ones too (a sandbox's Python is never reaped by
this process, so ``RUSAGE_CHILDREN`` alone misses it). Without a cgroup it falls back on
``getrusage`` and says so: then the sandbox's Python is not counted.

    python3 bench/cpu_per_check.py [--checks 20] [--sandbox bwrap] [--challenge SLUG ...]
    python3 bench/cpu_per_check.py --zygote-side-by-side [--rounds 3] ...
    python3 bench/cpu_per_check.py --batch-side-by-side [--rounds 3] ...
    python3 bench/cpu_per_check.py --skip-side-by-side [--rounds 3] ...

``--zygote-side-by-side`` measures each challenge with sandboxes started from scratch
(``MENACE_ZYGOTE=off``) and forked from the zygote, taking turns, ``--rounds`` times each,
and prints the medians and their ratio. ``--batch-side-by-side`` does the same with every
call sent one by one (``MENACE_BATCH=off``) and with property tests' calls sent in batches.
``--skip-side-by-side``: every test's code running (``MENACE_SKIP_KNOWN=off``) against
planned tests whose replies are all the reference's passing without it.

Printed per challenge: calls per check (calls answered by the sandbox), round trips per
check (requests that crossed its pipe: fewer than calls where a repeat went with its call), wall
time per check (and as a multiple of a bare Python start, measured in the same run), and
CPU per check: the grader's own process, the rest (bubblewrap and the
sandbox), and the total. The goal of issue 26 for after_game is a total of at most 25 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CPUACCT = Path("/sys/fs/cgroup/cpuacct")
#: Issue 26's goal for the CPU of one after_game check, parent and child.
AFTER_GAME_GOAL_MS = 25.0


def _cgroup(name: str) -> Path | None:
    """A fresh cpuacct cgroup (v1), or None where there is none to make."""
    group = CPUACCT / f"menace-bench-{os.getpid()}-{name}"
    try:
        group.mkdir()
    except OSError:
        return None
    return group


def _remove(group: Path) -> None:
    """Remove a cgroup once its last process (a sandbox killed a moment ago) has left it."""
    deadline = time.monotonic() + 5
    while True:
        try:
            group.rmdir()
            return
        except OSError:
            if time.monotonic() > deadline:
                print(f"(could not remove {group}: remove it by hand)", file=sys.stderr)
                return
            time.sleep(0.05)


#: What a side-by-side run switches: the environment variable, and each side's name.
SWITCHES = {
    "zygote": ("MENACE_ZYGOTE", "from scratch", "zygote"),
    "batch": ("MENACE_BATCH", "one by one", "batched"),
    "skip": ("MENACE_SKIP_KNOWN", "every test runs", "known skipped"),
}


def measure(slug: str, checks: int, sandbox: str, switched: dict[str, str] | None = None) -> dict[str, float]:
    """Run :func:`worker` for ``slug`` in its own process (in a cgroup where possible)."""
    group = _cgroup(slug)
    env = {**os.environ, **(switched or {})}
    argv = [sys.executable, __file__, "--worker", slug, str(checks), sandbox, str(group or "")]
    if group is not None:  # join the group before exec, so that every descendant is counted
        argv = ["sh", "-c", f'echo $$ > {group / "cgroup.procs"} && exec "$@"', "sh", *argv]
    try:
        done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    finally:
        if group is not None:
            _remove(group)
    if done.returncode != 0:
        sys.exit(f"checking {slug} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def worker(slug: str, checks: int, sandbox: str, group: str) -> None:
    """In the measured process: check the reference ``checks`` times, print one JSON line."""
    import resource

    sys.path.insert(0, str(REPO))
    from menace_course.checking.pipeline import check_submission
    from menace_course.checking.suite import load_suite
    from menace_course.course import find_course
    from menace_course.sandbox import zygote
    from menace_course.sandbox.child import Child

    zygote.enable()  # as the service's graders do (MENACE_ZYGOTE=off turns it off)
    suite = load_suite(find_course(REPO), slug)
    answer = REPO / "reference" / f"{slug}.py"
    check_submission(answer, suite, sandbox)  # type: ignore[arg-type]  # examples and caches made
    calls, trips = [0], [0]
    real, real_close = Child._call, Child.close

    def counted(self: Child, *args: object, **kwargs: object) -> object:
        calls[0] += 1
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    def closed(self: Child) -> None:
        trips[0] += getattr(self, "requests", 0)  # a tree before round trips were counted has none
        self.requests = 0
        real_close(self)

    Child._call = counted  # type: ignore[assignment,method-assign]
    Child.close = closed  # type: ignore[method-assign]

    def total() -> float:
        if group:
            return int((Path(group) / "cpuacct.usage").read_text()) / 1e9
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    def own() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    total_before, own_before, started = total(), own(), time.perf_counter()
    scores = set()
    for _ in range(checks):
        report = check_submission(answer, suite, sandbox)  # type: ignore[arg-type]
        scores.add((report.status.value, report.score == report.max_score))
    wall, spent_total, spent_own = time.perf_counter() - started, total() - total_before, own() - own_before
    if scores != {("checked", True)}:
        sys.exit(f"the reference of {slug} did not pass: {scores}")
    per = 1000 / checks
    print(
        json.dumps(
            {
                "calls": calls[0] / checks,
                "trips": trips[0] / checks,
                "wall_ms": wall * per,
                "grader_ms": spent_own * per,
                "rest_ms": (spent_total - spent_own) * per,
                "total_ms": spent_total * per,
                "kernel_counted_all": bool(group),
            }
        )
    )


def bare_start(runs: int = 11) -> float:
    """Milliseconds a bare ``python -c pass`` takes here (the median): the floor of any start."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((time.perf_counter() - started) * 1000)
    return sorted(times)[runs // 2]


def challenges() -> list[str]:
    """Every challenge of the course in this repository that has a reference answer."""
    return sorted(
        p.name for p in (REPO / "challenges").iterdir() if (REPO / "reference" / f"{p.name}.py").is_file()
    )


def report(checks: int, sandbox: str, slugs: list[str]) -> dict[str, dict[str, float]]:
    """Measure and print every challenge's line; give the numbers back (for bench_check)."""
    bare = bare_start()
    results = {slug: measure(slug, checks, sandbox) for slug in slugs}
    counted = all(r["kernel_counted_all"] for r in results.values())
    how = "a cpuacct cgroup (every process)" if counted else "getrusage (the sandbox's Python NOT counted)"
    print(f"CPU per check, {checks} checks of each reference answer, {sandbox}, counted by {how}:")
    print(f"  a bare Python start (python -c pass): median {bare:.1f} ms; x bare: a check's wall / that")
    heads = f"{'calls':>6} {'trips':>6} {'wall ms':>8} {'x bare':>7}"
    heads += f" {'grader ms':>10} {'sandbox ms':>11} {'total ms':>9}"
    print(f"  {'challenge':<12} {heads}")
    for slug, r in results.items():
        print(
            f"  {slug:<12} {r['calls']:6.0f} {r['trips'] or r['calls']:6.0f}"
            f" {r['wall_ms']:8.1f} {r['wall_ms'] / bare:7.1f}"
            f" {r['grader_ms']:10.1f} {r['rest_ms']:11.1f} {r['total_ms']:9.1f}"
        )
    if "after_game" in results:
        spent = results["after_game"]["total_ms"]
        verdict = "met" if spent <= AFTER_GAME_GOAL_MS else "NOT met"
        goal = f"after_game at most {AFTER_GAME_GOAL_MS:.0f} ms of CPU a check"
        print(f"  goal: {goal} -> {verdict} ({spent:.1f} ms)")
    return results


def side_by_side(checks: int, sandbox: str, slugs: list[str], rounds: int, switch: str) -> None:
    """Each challenge with ``switch`` (a key of :data:`SWITCHES`) off and on, taking turns."""
    variable, off, on = SWITCHES[switch]

    def median(values: list[float]) -> float:
        return sorted(values)[len(values) // 2]

    print(f"CPU per check (ms, all processes), {checks} checks a run, {rounds} runs each way, taking turns:")
    heads = f"{off:>15} {on:>15} {'ratio':>6} {'grader ' + off:>22} {'grader ' + on:>22}"
    print(f"  {'challenge':<12} {heads}")
    for slug in slugs:
        runs: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
        for _ in range(rounds):
            for mode in ("off", "on"):
                runs[mode].append(measure(slug, checks, sandbox, {variable: mode}))
        cpu = {mode: median([r["total_ms"] for r in found]) for mode, found in runs.items()}
        grader = {mode: median([r["grader_ms"] for r in found]) for mode, found in runs.items()}
        print(
            f"  {slug:<12} {cpu['off']:15.1f} {cpu['on']:15.1f} {cpu['on'] / cpu['off']:6.2f}"
            f" {grader['off']:22.1f} {grader['on']:22.1f}"
        )


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        slug, checks, sandbox, group = sys.argv[2:6]
        worker(slug, int(checks), sandbox, group)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=20)
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--challenge", action="append", default=None)
    parser.add_argument("--zygote-side-by-side", action="store_true")
    parser.add_argument("--batch-side-by-side", action="store_true")
    parser.add_argument("--skip-side-by-side", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for switch in SWITCHES:
        if getattr(args, f"{switch}_side_by_side"):
            side_by_side(args.checks, args.sandbox, args.challenge or challenges(), args.rounds, switch)
            return
    report(args.checks, args.sandbox, args.challenge or challenges())


if __name__ == "__main__":
    main()
