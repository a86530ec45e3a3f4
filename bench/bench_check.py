"""How long ``menace check`` takes on a correct after_game, next to a bare Python start.

All are timed in the same run on the same machine, interleaved, so the ratios mean something
on any machine. The goals (issue 26): at most 6x a bare Python start in its own process, 3x warm
(nbgrader needs about 3.2 s for one submission and ``otter run`` about 3.1 s: see the research
notes). ``menace check`` is timed twice: as a student runs it after their first check (served
by the warm checker, :mod:`menace_course.warm`), and in a process of its own
(``MENACE_WARM=off``: the first check of a session, and every check in CI or a script that
turns it off). Another line times the imports alone (``import menace_course.commands.check``
and the test modules it loads), so what is start-up and what is checking can be told apart;
``python3 -X importtime -m menace_course check FILE`` says which modules cost what.

    python3 bench/bench_check.py [--runs 21] [--sandbox bwrap|process|auto]
    python3 bench/bench_check.py --batch-side-by-side [--runs 15]
    python3 bench/bench_check.py --preload-side-by-side [--runs 31]

``--batch-side-by-side`` times only ``menace check`` in its own process and warm, each with
every call sent one by one (``MENACE_BATCH=off``) and with property tests' calls in batches,
taking turns, next to a bare start. ``--preload-side-by-side`` times only warm checks, each
copy with what its warm checker loaded after the last check (:mod:`menace_course.warm.preload`)
and without it (``MENACE_PRELOAD=off``: the copy collects its suite itself), taking turns.

The first (cold) run generates and caches the hypothesis examples and compiled templates;
it is reported on its own and left out of the median.

It also measures what the sandbox's defences cost one check, side by side in the same
run: a child started, loaded and called as a check calls it (the after_game suite makes
about 150 calls), with and without the seccomp filter; and last, for every challenge, the
CPU one check costs, the grader's and its sandboxes', from the kernel's accounting
(:mod:`cpu_per_check`, which runs on its own too).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cpu_per_check  # beside this file: the CPU one check costs, for every challenge

REPO = Path(__file__).resolve().parent.parent
ANSWER = REPO / "examples" / "after_game_student.py"
#: What ``menace check`` imports before it checks anything: the command, the feedback's
#: templates engine, and the hidden tests as the grader imports them once their examples are
#: stored (with the hypothesis stand-in, not hypothesis).
IMPORTS = (
    "import pathlib, menace_course.commands.check, menace_course.checking.pipeline, menace_course.feedback;"
    "from menace_course.checking.importing import import_file;"
    "from menace_course.checking.standin import standin_import;"
    "from menace_course.checking.testing import use_course_references;"
    f"use_course_references(pathlib.Path({str(REPO / 'reference')!r}));"
    f"import_file(pathlib.Path({str(REPO / 'hidden_tests' / 'after_game' / 'test_after_game.py')!r}),"
    " importer=standin_import)"
)
#: The least an own-process ``menace check`` imports whatever else changes: ``re`` (pip's
#: console-script wrapper imports it before any code of ours) and jinja2 (the feedback is
#: rendered from the course's templates with it).
OWN_PROCESS_FLOOR = "import re, jinja2"
#: About as many calls as the after_game suite makes on a correct answer.
CALLS_PER_CHECK = 150
#: Issue 26: ``menace check`` of a correct after_game, in its own process and served warm,
#: at most this many times a bare Python start.
OWN_PROCESS_GOAL = 6.0
WARM_GOAL = 3.0


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0,):
        sys.exit(
            f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout.decode()}{done.stderr.decode()}"
        )
    return elapsed


def wait_for_warm_checker(env: dict[str, str]) -> None:
    """Wait until the warm checker the first check started answers (it starts in the background)."""
    menace_python = [
        sys.executable,
        "-c",
        "from menace_course.warm.client import ask, running;"
        "import sys; sys.exit(0 if any(ask(p, 'status') for p in running()) else 1)",
    ]
    deadline = time.monotonic() + 30
    while subprocess.run(menace_python, env=env, check=False).returncode != 0:
        if time.monotonic() > deadline:
            sys.exit("the warm checker did not start within 30 s")
        time.sleep(0.2)


def one_child(kind: str, with_filter: bool) -> float:
    """Seconds to start a sandboxed child, load the answer and make a check's worth of calls."""
    sys.path.insert(0, str(REPO))
    from menace_course.limits import Limits
    from menace_course.sandbox import seccomp
    from menace_course.sandbox.child import Child

    real = seccomp.supported
    if not with_filter:
        seccomp.supported = lambda name=None: False  # type: ignore[assignment]
    try:
        started = time.perf_counter()
        with Child(ANSWER.read_text(encoding="utf-8"), kind, Limits()) as worker:  # type: ignore[arg-type]
            assert worker.load().status == "ready"
            for square in range(CALLS_PER_CHECK):
                worker.call("after_game", [[4] * 9, square % 9, "win"])
        return time.perf_counter() - started
    finally:
        seccomp.supported = real  # type: ignore[assignment]


def filter_cost(kind: str, runs: int) -> None:
    pairs = [(one_child(kind, True), one_child(kind, False)) for _ in range(runs)]
    with_filter = statistics.median(p[0] for p in pairs)
    without = statistics.median(p[1] for p in pairs)
    print(f"child start + load + {CALLS_PER_CHECK} calls, {kind}:")
    print(f"  with the seccomp filter     median {with_filter * 1000:7.1f} ms")
    print(f"  without it                  median {without * 1000:7.1f} ms")
    print(f"  ratio with / without               {with_filter / without:7.2f} x")


def print_floors(median: dict[str, float]) -> None:
    """What no ``menace check`` can go below, measured in the same run, against the goals.

    In its own process: :data:`OWN_PROCESS_FLOOR`, before anything is checked. Warm: the
    whole warm path with nothing to check (``menace check --help``: the client through pip's
    wrapper, the socket, the fork, click); what is left of the warm goal is what a check
    may take in the copy, to be set beside after_game's wall time in an already-warm grader
    (the CPU table below).
    """
    bare = median["bare"]
    own, warm = median["own process floor"], median["warm floor"]
    print("floors (no check can cost less, in this run):")
    print(
        f"  own process: {OWN_PROCESS_FLOOR:<18}    median {own * 1000:7.1f} ms  {own / bare:5.1f} x"
        f"  (goal {OWN_PROCESS_GOAL:.0f} x)"
    )
    print(
        f"  warm: menace check --help         median {warm * 1000:7.1f} ms  {warm / bare:5.1f} x"
        f"  (goal {WARM_GOAL:.0f} x: {(WARM_GOAL * bare - warm) * 1000:.1f} ms left for the check itself)"
    )


def batch_side_by_side(check: list[str], env: dict[str, str], runs: int) -> None:
    """``menace check`` in its own process and warm, batches off and on, taking turns."""
    bare = [sys.executable, "-c", "pass"]
    sides = {
        f"{where}, {label}": {**env, "MENACE_WARM": warm, "MENACE_BATCH": batch}
        for where, warm in (("own process", "off"), ("warm checker", "on"))
        for label, batch in (("one by one", "off"), ("batched", "on"))
    }
    timed(check, sides["warm checker, batched"])  # the examples and plans cached, the warm checker started
    wait_for_warm_checker(env | {"MENACE_WARM": "on"})
    times: dict[str, list[float]] = {"bare python start": [], **{side: [] for side in sides}}
    for _ in range(runs):
        times["bare python start"].append(timed(bare, env))
        for side, side_env in sides.items():
            times[side].append(timed(check, side_env))
    bare_median = statistics.median(times["bare python start"])
    print(f"runs: {runs}, taking turns (medians; x bare start):")
    for side, found in times.items():
        median = statistics.median(found)
        print(f"  {side:<30} {median * 1000:7.1f} ms  {median / bare_median:5.1f} x")


def preload_side_by_side(check: list[str], env: dict[str, str], runs: int) -> None:
    """Warm checks, with the suite the warm checker loaded and without it, taking turns."""
    sides = {
        "warm, copy collects (off)": {**env, "MENACE_WARM": "on", "MENACE_PRELOAD": "off"},
        "warm, suite preloaded": {**env, "MENACE_WARM": "on"},
    }
    timed(check, sides["warm, suite preloaded"])  # the examples and plans cached, the warm checker started
    wait_for_warm_checker(sides["warm, suite preloaded"])
    for _ in range(2):  # the first served check leaves the note its warm checker loads from
        timed(check, sides["warm, suite preloaded"])
        time.sleep(0.5)
    times: dict[str, list[float]] = {"bare python start": [], **{side: [] for side in sides}}
    bare = [sys.executable, "-c", "pass"]
    for turn in range(runs):
        times["bare python start"].append(timed(bare, env))
        for side in list(sides)[:: 1 if turn % 2 == 0 else -1]:
            times[side].append(timed(check, sides[side]))
            time.sleep(0.05)  # (the warm checker loads between checks, as between a student's)
    bare_median = statistics.median(times["bare python start"])
    print(f"runs: {runs}, taking turns (medians; x bare start):")
    for side, found in times.items():
        median = statistics.median(found)
        print(f"  {side:<30} {median * 1000:7.1f} ms  {median / bare_median:5.2f} x")
    off, on = (statistics.median(times[side]) for side in sides)
    print(f"  preloaded / off                       {on / off:5.2f} x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--batch-side-by-side", action="store_true")
    parser.add_argument("--preload-side-by-side", action="store_true")
    args = parser.parse_args()
    menace = shutil.which("menace", path=str(Path(sys.executable).parent)) or "menace"
    cache = tempfile.mkdtemp(prefix="menace-bench-cache-")
    env = {**os.environ, "MENACE_CACHE_DIR": cache, "XDG_CACHE_HOME": cache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    check = [menace, "check", str(ANSWER), "--challenge", "after_game", "--sandbox", args.sandbox]
    bare = [sys.executable, "-c", "pass"]
    imports = [sys.executable, "-c", IMPORTS]
    own_process = {**env, "MENACE_WARM": "off"}
    warm = {**env, "MENACE_WARM": "on"}
    if args.batch_side_by_side or args.preload_side_by_side:
        try:
            (batch_side_by_side if args.batch_side_by_side else preload_side_by_side)(check, env, args.runs)
        finally:
            subprocess.run([menace, "warm", "stop"], env=warm, capture_output=True, check=False)
            shutil.rmtree(cache, ignore_errors=True)
        return
    cold = timed(check, warm)  # generates the examples, and starts the warm checker
    wait_for_warm_checker(warm)
    sides = {  # label: (command, environment), timed in turns
        "bare": (bare, env),
        "imports": (imports, env),
        "own process": (check, own_process),
        "warm": (check, warm),
        "own process floor": ([sys.executable, "-c", OWN_PROCESS_FLOOR], env),
        "warm floor": ([menace, "check", "--help"], warm),
    }
    times: dict[str, list[float]] = {side: [] for side in sides}
    for _ in range(args.runs):
        for side, (command, side_env) in sides.items():
            times[side].append(timed(command, side_env))
    median = {side: statistics.median(found) for side, found in times.items()}
    subprocess.run([menace, "warm", "stop"], env=warm, capture_output=True, check=False)
    bare_median, alone_median, warm_median = median["bare"], median["own process"], median["warm"]
    print(f"runs: {args.runs}, sandbox: {args.sandbox}, cores: {os.cpu_count()}")
    print(f"bare python start              median {bare_median * 1000:7.1f} ms")
    imports_median = median["imports"]
    print(f"imports alone                  median {imports_median * 1000:7.1f} ms  (its modules, tests)")
    print(f"menace check, its own process  median {alone_median * 1000:7.1f} ms  (MENACE_WARM=off)")
    print(f"menace check, warm checker     median {warm_median * 1000:7.1f} ms  (first {cold * 1000:.0f} ms)")
    print(f"ratio warm / bare                    {warm_median / bare_median:7.1f} x")
    print(f"ratio own process / bare             {alone_median / bare_median:7.1f} x")
    print(f"ratio warm / own process             {warm_median / alone_median:7.2f} x")
    own_ratio, warm_ratio = alone_median / bare_median, warm_median / bare_median
    print(
        f"goal (issue 26): own process at most {OWN_PROCESS_GOAL:.0f}x a bare start -> "
        f"{'met' if own_ratio <= OWN_PROCESS_GOAL else 'NOT met'} ({own_ratio:.1f}x), "
        f"warm checker at most {WARM_GOAL:.0f}x -> {'met' if warm_ratio <= WARM_GOAL else 'NOT met'}"
        f" ({warm_ratio:.1f}x)"
    )
    print_floors(median)
    shutil.rmtree(cache, ignore_errors=True)
    if args.sandbox in ("bwrap", "process"):
        filter_cost(args.sandbox, args.runs)
        cpu_per_check.report(args.runs, args.sandbox, cpu_per_check.challenges())


if __name__ == "__main__":
    main()
