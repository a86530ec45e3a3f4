"""How big and how slow a student's install is, next to the full (instructor's) install.

The student installs the kit (``menace kit``): this package with the public course inside,
and only the base dependencies (click, rich, jinja2, markupsafe). The full install adds
the extras an instructor's machine or the service has: ``[grader,plots,service]``. Both
are installed from wheels into a fresh virtual environment, from a warm pip cache (each is
installed once, untimed, before the timed runs), and measured the same way:

* size: what the install added to the environment's ``site-packages`` (a fresh venv's own
  pip is not counted; the whole environment's size is printed beside it);
* time: ``pip install`` from start to end, wall clock, interleaved with a floor (a fresh
  venv installing one small wheel: pip's own start-up and index look-ups) so that a busy
  machine shows as a busy floor.

The goal for the kit: under 30 MB and under 20 s (issue 25).

    python3 bench/bench_install.py [--runs 3] [--python python3.11]
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
FULL_EXTRAS = "[grader,plots,service]"
GOAL_MB, GOAL_SECONDS = 30.0, 20.0
#: pip's fixed cost, measured beside them: a fresh venv and one small pure-Python wheel.
FLOOR, FLOOR_REQUIREMENT = "floor (pip install mdurl)", "mdurl"


def folder_bytes(folder: Path) -> int:
    """The size of every file under ``folder`` (links not followed)."""
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def site_packages(venv: Path) -> Path:
    """The venv's ``site-packages`` folder."""
    return next(venv.glob("lib/python3*/site-packages"))


def build_wheels(scratch: Path) -> tuple[Path, Path]:
    """The kit's wheel (``menace kit``) and the plain package's wheel (``pip wheel``)."""
    kit_dir, plain_dir = scratch / "kit", scratch / "plain"
    subprocess.run(
        [sys.executable, "-m", "menace_course", "kit", "--out", str(kit_dir), "--course", str(REPO)],
        check=True,
        capture_output=True,
        env={**os.environ, "MENACE_WARM": "off"},
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(plain_dir), str(REPO)],
        check=True,
        capture_output=True,
    )
    return next(kit_dir.glob("*.whl")), next(plain_dir.glob("*.whl"))


def install(python: str, requirement: str, scratch: Path) -> tuple[float, int, int, int]:
    """Install ``requirement`` into a new venv: seconds, bytes added, venv bytes, distributions."""
    venv = Path(tempfile.mkdtemp(prefix="venv-", dir=scratch))
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    before = folder_bytes(site_packages(venv))
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    started = time.perf_counter()
    subprocess.run([*pip, requirement], check=True, capture_output=True)
    seconds = time.perf_counter() - started
    after = folder_bytes(site_packages(venv))
    whole = folder_bytes(venv)
    listed = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    shutil.rmtree(venv)
    installed = [line for line in listed if not line.startswith(("pip==", "setuptools=="))]
    return seconds, after - before, whole, len(installed)


def main() -> None:
    """Build both wheels, install each once to warm the cache, then ``--runs`` times, interleaved."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="timed installs of each (default 3)")
    parser.add_argument("--python", default=sys.executable, help="the Python the venvs are made with")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-install-") as folder:
        scratch = Path(folder)
        kit, plain = build_wheels(scratch)
        cases = {
            FLOOR: FLOOR_REQUIREMENT,
            "kit (student)": str(kit),
            f"full {FULL_EXTRAS}": f"{plain}{FULL_EXTRAS}",
        }
        for requirement in cases.values():
            install(options.python, requirement, scratch)  # warm-up: fills pip's cache
        runs: dict[str, list[tuple[float, int, int, int]]] = {name: [] for name in cases}
        for _ in range(options.runs):  # interleaved, so a busy moment hits every case alike
            for name, requirement in cases.items():
                runs[name].append(install(options.python, requirement, scratch))
    floor = statistics.median(r[0] for r in runs[FLOOR])
    print(f"{'install':<32}{'added MB':>9}{'venv MB':>9}{'packages':>9}{'median s':>9}{'x floor':>8}  runs s")
    for name, measured in runs.items():
        seconds = [r[0] for r in measured]
        _, added, whole, count = measured[-1]
        median = statistics.median(seconds)
        spread = " ".join(f"{s:.1f}" for s in seconds)
        sizes = f"{added / 1e6:>9.1f}{whole / 1e6:>9.1f}{count:>9}"
        print(f"{name:<32}{sizes}{median:>9.1f}{median / floor:>8.1f}  {spread}")
    kit_runs = runs["kit (student)"]
    size, seconds = kit_runs[-1][1] / 1e6, statistics.median(r[0] for r in kit_runs)
    verdict = "meets" if size < GOAL_MB and seconds < GOAL_SECONDS else "MISSES"
    print(f"\nthe kit {verdict} the goal: under {GOAL_MB:.0f} MB and under {GOAL_SECONDS:.0f} s", end="")
    print(" (on a machine doing nothing else: other work on it shows in every time, the floor's too)")


if __name__ == "__main__":
    main()
