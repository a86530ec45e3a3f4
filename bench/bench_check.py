"""How long ``menace check`` takes on a correct after_game, next to a bare Python start.

Both are timed in the same run on the same machine, so the ratio means something on any
machine. The goal is a median under 0.5 s with bubblewrap on a 2-core machine (nbgrader
needs about 3.2 s for one submission and ``otter run`` about 3.1 s: see the research notes).

    python3 bench/bench_check.py [--runs 21] [--sandbox bwrap|process|auto]

The first (cold) run generates and caches the hypothesis examples and compiled templates;
it is reported on its own and left out of the median.
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

REPO = Path(__file__).resolve().parent.parent
ANSWER = REPO / "examples" / "after_game_student.py"


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0,):
        sys.exit(
            f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout.decode()}{done.stderr.decode()}"
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sandbox", default="bwrap")
    args = parser.parse_args()
    menace = shutil.which("menace", path=str(Path(sys.executable).parent)) or "menace"
    cache = tempfile.mkdtemp(prefix="menace-bench-cache-")
    env = {**os.environ, "MENACE_CACHE_DIR": cache, "XDG_CACHE_HOME": cache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    check = [menace, "check", str(ANSWER), "--challenge", "after_game", "--sandbox", args.sandbox]
    bare = [sys.executable, "-c", "pass"]
    cold = timed(check, env)
    pairs = [(timed(bare, env), timed(check, env)) for _ in range(args.runs)]
    bare_median = statistics.median(p[0] for p in pairs)
    check_median = statistics.median(p[1] for p in pairs)
    print(f"runs: {args.runs}, sandbox: {args.sandbox}, cores: {os.cpu_count()}")
    print(f"bare python start  median {bare_median * 1000:7.1f} ms")
    print(f"menace check       median {check_median * 1000:7.1f} ms  (cold first run {cold * 1000:.0f} ms)")
    print(f"ratio check / bare       {check_median / bare_median:7.1f} x")
    print(f"goal: median under 500 ms -> {'met' if check_median < 0.5 else 'NOT met'}")
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
