"""How fast ``menace grade`` grades a class, and how much memory it needs, next to a bare Python start.

It writes a class of after_game answers into a temporary folder (a realistic mix: most
right, written in different ways; the usual wrong ones: no floor at 0, wrong rewards,
the input changed, the wrong square, None or a tuple returned; a few syntax errors,
crashes and endless loops), grades it with the real ``menace grade`` command, and prints:

* throughput: submissions graded per second of wall-clock time, the whole command
  included (start, discovery, grading, feedback, grades.csv, report.html);
* peak memory: the sum of the peak resident sizes of the grader and its worker processes
  (read from ``/proc/<pid>/status`` VmHWM while it runs), and the largest sum of resident
  sizes seen at any one time over every process of the batch, sandboxes included;
* the same for a bare ``python -c pass``, timed in the same run.

Two class sizes are graded (250 and 1,000 by default) to show whether memory grows with
the size of the class. The goal is at least 25 submissions a second with bubblewrap on a
2-core machine (nbgrader autograde manages about 1 a second).

    python3 bench/bench_grade.py [--sizes 250 1000] [--jobs N] [--sandbox bwrap|process]
    python3 bench/bench_grade.py --profile 40   # where the time goes, in one process
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's menace_course, whatever else is installed

# Answers to after_game: (name, share of the class, body). Right ones are written five ways.
REWARD = "{'win': 3, 'draw': 1, 'loss': -1}[result]"
ANSWERS: list[tuple[str, float, str]] = [
    ("right_copy", 0.14, f"new = list(beads)\nnew[square] = max(0, new[square] + {REWARD})\nreturn new"),
    (
        "right_slice",
        0.12,
        "new = beads[:]\nif result == 'win':\n    new[square] += 3\nelif result == 'draw':\n"
        "    new[square] += 1\nelif new[square] > 0:\n    new[square] -= 1\nreturn new",
    ),
    (
        "right_comprehension",
        0.1,
        f"change = {REWARD}\nreturn [max(0, n + change) if i == square else n for i, n in enumerate(beads)]",
    ),
    (
        "right_loop",
        0.08,
        "new = []\nfor i in range(9):\n    n = beads[i]\n    if i == square:\n"
        "        n = n + 3 if result == 'win' else n + 1 if result == 'draw' else max(n - 1, 0)\n"
        "    new.append(n)\nreturn new",
    ),
    (
        "right_copy_module",
        0.06,
        "import copy\nnew = copy.copy(beads)\n"
        "new[square] = max(0, new[square] + (3 if result == 'win' else 1 if result == 'draw' else -1))\n"
        "return new",
    ),
    ("no_floor", 0.1, f"new = list(beads)\nnew[square] += {REWARD}\nreturn new"),
    ("changes_input", 0.1, f"beads[square] = max(0, beads[square] + {REWARD})\nreturn beads"),
    (
        "win_adds_one",
        0.06,
        "new = list(beads)\nnew[square] = max(0, new[square] + {'win': 1, 'draw': 1, 'loss': -1}[result])\n"
        "return new",
    ),
    (
        "wrong_square",
        0.05,
        f"new = list(beads)\ni = (square + 1) % 9\nnew[i] = max(0, new[i] + {REWARD})\nreturn new",
    ),
    ("prints_instead", 0.05, f"new = list(beads)\nnew[square] = max(0, new[square] + {REWARD})\nprint(new)"),
    (
        "returns_tuple",
        0.04,
        f"new = list(beads)\nnew[square] = max(0, new[square] + {REWARD})\nreturn tuple(new)",
    ),
    ("starter_unchanged", 0.04, "return beads"),
    ("raises_on_loss", 0.03, "new = list(beads)\nnew[square] += {'win': 3, 'draw': 1}[result]\nreturn new"),
    ("syntax_error", 0.02, "new = list(beads\nreturn new"),
    (
        "loops_on_loss",
        0.005,
        "new = list(beads)\nwhile result == 'loss':\n    pass\n"
        "new[square] += 3 if result == 'win' else 1\nreturn new",
    ),
]
MIX = [(name, share) for name, share, _ in ANSWERS]


def write_class(folder: Path, size: int, rng: random.Random) -> dict[str, int]:
    """Write ``size`` answers (files ``student0001.py`` ...) in the mix's proportions."""
    folder.mkdir(parents=True, exist_ok=True)
    names = rng.choices([a[0] for a in ANSWERS], weights=[a[1] for a in ANSWERS], k=size)
    bodies = {name: body for name, _, body in ANSWERS}
    counts: dict[str, int] = {}
    for number, name in enumerate(names, start=1):
        counts[name] = counts.get(name, 0) + 1
        body = textwrap.indent(bodies[name], "    ")
        text = f"# student {number}\n\n\ndef after_game(beads, square, result):\n{body}\n"
        (folder / f"student{number:04d}.py").write_text(text, encoding="utf-8")
    return counts


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def _tree(root: int) -> list[int]:
    pids, queue = [], [root]
    while queue:
        pid = queue.pop()
        pids.append(pid)
        queue += _children(pid)
    return pids


def _status(pid: int) -> dict[str, str]:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return dict(line.split(":", 1) for line in lines if ":" in line)


def _kb(value: str | None) -> int:
    return int(value.split()[0]) if value else 0


@dataclass
class Measured:
    """What one run of the grader cost."""

    seconds: float = 0.0
    grader_kb: int = 0  #: sum of the peak RSS of the grader and its worker processes
    all_at_once_kb: int = 0  #: the largest total RSS of every process of the run at one moment
    processes: int = 0
    cpu_seconds: float | None = None  #: CPU time of every process of the run (None without cgroups)


CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def _cgroup() -> Path | None:
    """A fresh cpuacct cgroup (v1) that counts the CPU of every process put in it, killed ones too."""
    group = CPUACCT / f"menace-bench-{os.getpid()}"
    try:
        group.mkdir()
    except OSError:
        return None
    return group


def run_and_measure(argv: list[str], env: dict[str, str], log: Path) -> Measured:
    """Run ``argv``, sampling the memory of its processes; count its CPU in a cgroup where possible."""
    group = _cgroup()
    if group is not None:  # join the group before exec, so that every descendant is counted
        argv = ["sh", "-c", f'echo $$ > {group / "cgroup.procs"} && exec "$@"', "sh", *argv]
    measured = Measured()
    peaks: dict[int, int] = {}
    seen: set[int] = set()
    started = time.perf_counter()
    with log.open("w") as errors:
        process = subprocess.Popen(argv, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=errors)
        while process.poll() is None:
            total = 0
            grader = {process.pid, *_children(process.pid)}
            for pid in _tree(process.pid):
                status = _status(pid)
                total += _kb(status.get("VmRSS"))
                seen.add(pid)
                if pid in grader:
                    peaks[pid] = max(peaks.get(pid, 0), _kb(status.get("VmHWM")))
            measured.all_at_once_kb = max(measured.all_at_once_kb, total)
            time.sleep(0.05)
    measured.seconds = time.perf_counter() - started
    if process.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({process.returncode}):\n{log.read_text()[-3000:]}")
    measured.grader_kb, measured.processes = sum(peaks.values()), len(seen)
    if group is not None:
        measured.cpu_seconds = int((group / "cpuacct.usage").read_text()) / 1e9
        with contextlib.suppress(OSError):
            group.rmdir()
    return measured


def bare_python(env: dict[str, str], runs: int = 15) -> tuple[float, int]:
    """Median seconds and peak RSS (KB) of ``python -c pass``."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
        times.append(time.perf_counter() - started)
    peak = subprocess.run(
        [sys.executable, "-c", "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return statistics.median(times), int(peak.stdout)


def grade_once(size: int, jobs: int | None, sandbox: str, env: dict[str, str], work: Path) -> None:
    folder = work / f"class-{size}"
    counts = write_class(folder, size, random.Random(size))
    out = work / f"out-{size}"
    argv = [
        sys.executable,
        "-m",
        "menace_course",
        "grade",
        str(folder),
        "--challenge",
        "after_game",
        "--out",
        str(out),
    ]
    argv += ["--sandbox", sandbox] + (["--i-accept-no-sandbox"] if sandbox == "process" else [])
    argv += ["--jobs", str(jobs)] if jobs else []
    cost = run_and_measure(argv, env, work / f"grade-{size}.log")
    cpu = (
        f"CPU {cost.cpu_seconds / size * 1000:5.1f} ms a submission (so at most "
        f"{size * (os.cpu_count() or 1) / cost.cpu_seconds:.0f}/s on these cores when idle)"
        if cost.cpu_seconds
        else "CPU not measured (no cpuacct cgroup)"
    )
    print(
        f"class of {size:>5}: {cost.seconds:6.1f} s  {size / cost.seconds:6.1f} submissions/s  "
        f"grader+workers peak {cost.grader_kb / 1024:5.0f} MB  "
        f"all processes at once {cost.all_at_once_kb / 1024:5.0f} MB  ({cost.processes} processes)"
    )
    print(f"             {cpu}")
    print("             mix: " + ", ".join(f"{name} {n}" for name, n in sorted(counts.items())))


def _cpu_meter() -> Callable[[], float]:
    """Seconds of CPU used so far by this process and every child it started (killed ones too)."""
    group = _cgroup()
    if group is None:
        return lambda: float("nan")
    (group / "cgroup.procs").write_text(str(os.getpid()))
    return lambda: int((group / "cpuacct.usage").read_text()) / 1e9


def profile(count: int, sandbox: str) -> None:
    """Grade ``count`` submissions one after another in this process and say where the CPU goes.

    Three passes over the same files: only starting each sandbox and loading the file in
    it; the whole check; and the whole check under cProfile (the grader's side only).
    The grader's own CPU is this process's; the sandboxes' is the rest of the cgroup's.
    """
    import cProfile
    import pstats

    from menace_course.catalog import load_challenge
    from menace_course.checking.loader import read_submission
    from menace_course.checking.pipeline import check_submission
    from menace_course.checking.suite import collect
    from menace_course.course import find_course
    from menace_course.sandbox.child import Child

    work = Path(tempfile.mkdtemp(prefix="menace-profile-"))
    write_class(work, count, random.Random(1))
    course = find_course(REPO)
    suite = collect(course, load_challenge(course, "after_game"))
    sources = [read_submission(path) for path in sorted(work.iterdir())]
    check_submission(sources[0], suite, sandbox)  # warm the example cache
    total = _cpu_meter()

    def measure(label: str, run: Callable[[], object]) -> None:
        wall, mine, everything = time.perf_counter(), time.process_time(), total()
        for _ in sources:
            run()
        wall, mine = time.perf_counter() - wall, time.process_time() - mine
        children = total() - everything - mine
        print(
            f"{label:<34} wall {wall / count * 1000:6.1f} ms   grader CPU {mine / count * 1000:6.1f} ms   "
            f"sandbox CPU {children / count * 1000:6.1f} ms   (a submission)"
        )

    files = iter(sources * 2)

    def start_and_load() -> None:
        with Child(next(files).text, sandbox, suite.challenge.limits) as worker:
            worker.load()

    measure("start the sandbox and load the file", start_and_load)
    measure("the whole check", lambda: check_submission(next(files), suite, sandbox))
    profiler = cProfile.Profile()
    profiler.enable()
    for source in sources:
        check_submission(source, suite, sandbox)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
    shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 1000])
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--sandbox", default="bwrap", choices=["bwrap", "process"])
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="profile N submissions instead")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, args.sandbox)
        return
    work = Path(tempfile.mkdtemp(prefix="menace-bench-grade-"))
    env = {**os.environ, "MENACE_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(REPO)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an instructor's Python keeps compiled modules
    try:
        bare_seconds, bare_kb = bare_python(env)
        print(f"machine: {os.cpu_count()} cores; sandbox: {args.sandbox}; jobs: {args.jobs or 'default'}")
        print(f"bare python -c pass: {bare_seconds * 1000:.1f} ms, peak {bare_kb / 1024:.0f} MB")
        print(f"mix of answers: {', '.join(f'{name} {share:.1%}' for name, share in MIX)}")
        for size in args.sizes:
            grade_once(size, args.jobs, args.sandbox, env, work)
        print("goal: at least 25 submissions/s with bubblewrap on 2 cores")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
