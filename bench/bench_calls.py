"""CPU of one call across the sandbox's pipe: after_game's calls, replayed, in two trees side by side.

A child of the after_game reference is started and loaded, then called exactly as
after_game's suite calls it in one check (the calls are recorded once from a real check
of the reference, in this tree: each call's function, arguments, whether its repeat went
with it, and each ``call_again``), the arguments copied with ``compare.clone`` as the
proxy copies them. Only the calls are measured, not the start and load: the grader's CPU
(``time.process_time``) and the child's (``/proc/PID/schedstat``'s run time, in ns, of the
sandboxed Python), per call, and the wall time.

    python3 bench/bench_calls.py [--rounds 6] [--children 4] TREE [TREE ...]

Each TREE is a source tree of menace_course (for instance ``/tmp/main-copy`` and ``.``); the
trees take turns, round after round, each child in a fresh process with that tree first on
``sys.path``. Printed per tree: the least and the median over all its children of the CPU
per call (grader, child, both) and the wall time per call. Numbers, never assertions: the
project's tests have no timed assertions.
"""

from __future__ import annotations

import argparse
import json
import marshal
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SCRIPT = Path(tempfile.gettempdir()) / "menace-bench-calls.marshal"


def record() -> list[tuple[object, ...]]:
    """One check of the after_game reference in this tree: every call, in order."""
    sys.path.insert(0, str(HERE))
    from menace_course.checking.pipeline import check_submission
    from menace_course.checking.suite import load_suite
    from menace_course.course import find_course
    from menace_course.sandbox.child import Child

    suite = load_suite(find_course(HERE), "after_game")
    script: list[tuple[object, ...]] = []
    real_call, real_again = Child.call, Child.call_again

    def call(self: Child, function: str, args: list[object], then_again: bool = False) -> object:
        script.append(("call", function, tuple(args), then_again))
        return real_call(self, function, args, then_again=then_again)

    def again(self: Child) -> object:
        script.append(("again",))
        return real_again(self)

    Child.call, Child.call_again = call, again  # type: ignore[method-assign,assignment]
    report = check_submission(HERE / "reference" / "after_game.py", suite, "bwrap")
    Child.call, Child.call_again = real_call, real_again  # type: ignore[method-assign]
    if report.score != report.max_score:
        sys.exit("the after_game reference did not pass")
    return script


def replay(tree: str, sandbox: str) -> None:
    """In a fresh process with ``tree`` first on the path: one child, the script, one JSON line."""
    sys.path.insert(0, tree)
    import menace_course
    from menace_course.checking.compare import clone
    from menace_course.limits import Limits
    from menace_course.sandbox.child import Child
    from menace_course.sandbox.clock import leaf_pid

    assert Path(menace_course.__file__).resolve().is_relative_to(Path(tree).resolve()), menace_course.__file__
    with open(SCRIPT, "rb") as file:
        script = marshal.load(file)
    source = (HERE / "reference" / "after_game.py").read_text()
    with Child(source, sandbox, Limits()) as child:  # type: ignore[arg-type]
        if child.load().status != "ready":
            sys.exit("the reference did not load")
        pid = leaf_pid(child._process.pid)  # type: ignore[union-attr]
        schedstat = f"/proc/{pid}/schedstat"

        def child_cpu() -> float:
            with open(schedstat) as file:
                return int(file.read().split()[0]) / 1e9

        before_child, before_own, started = child_cpu(), time.process_time(), time.perf_counter()
        for step in script:
            if step[0] == "call":
                _, function, args, then_again = step
                outcome = child.call(function, list(clone(args)), then_again=then_again)
            else:
                outcome = child.call_again()
            if outcome.status != "returned":
                sys.exit(f"a call did not return: {outcome}")
        wall, own, spent_child = (
            time.perf_counter() - started,
            time.process_time() - before_own,
            child_cpu() - before_child,
        )
        trips = child.requests
    calls = len(script)
    print(
        json.dumps(
            {
                "calls": calls,
                "trips": trips,
                "grader": own / calls,
                "child": spent_child / calls,
                "wall": wall / calls,
            }
        )
    )


def main() -> None:
    if sys.argv[1:2] == ["--replay"]:
        replay(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--children", type=int, default=4, help="children per tree per round")
    parser.add_argument("--sandbox", default="bwrap")
    args = parser.parse_args()
    with open(SCRIPT, "wb") as file:
        marshal.dump(record(), file)
    found: dict[str, list[dict[str, float]]] = {tree: [] for tree in args.trees}
    for _ in range(args.rounds):
        for tree in args.trees:
            for _ in range(args.children):
                argv = [sys.executable, __file__, "--replay", tree, args.sandbox]
                done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=HERE)
                if done.returncode != 0:
                    sys.exit(f"replay in {tree} failed:\n{done.stderr[-3000:]}")
                found[tree].append(json.loads(done.stdout.splitlines()[-1]))
    load = os.getloadavg()[0]
    first = found[args.trees[0]][0]
    trips = f"{first['calls']:.0f} calls, {first['trips']:.0f} round trips"
    print(f"after_game's calls: {trips}; load average {load:.1f}")
    print(f"  µs per call, least / median of {args.rounds * args.children} children per tree")
    print(f"  {'tree':<28} {'grader':>15} {'child':>15} {'both':>15} {'wall':>15}")
    for tree, runs in found.items():
        cells = []
        for key in ("grader", "child", "both", "wall"):
            values = [r["grader"] + r["child"] if key == "both" else r[key] for r in runs]
            cells.append(f"{min(values) * 1e6:6.1f} / {statistics.median(values) * 1e6:6.1f}")
        print(f"  {tree:<28} " + " ".join(f"{c:>15}" for c in cells))


if __name__ == "__main__":
    main()
