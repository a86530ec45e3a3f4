"""The web process's CPU per check, this tree against another (e.g. main's), side by side in one run.

    python3 bench/bench_web_cpu.py [--before /tmp/main-copy] [--rounds 4] [--seconds 10]
                                   [--students 4] [--workers 2] [--sandbox bwrap|process]
    python3 bench/bench_web_cpu.py --zygote-side-by-side [...]
    python3 bench/bench_web_cpu.py --batch-side-by-side [--correct-only] [...]

``--zygote-side-by-side`` compares this tree with itself: ``scratch`` starts every sandbox
from scratch (``MENACE_ZYGOTE=off``), ``zygote`` forks them from a zygote (``on``).
``--batch-side-by-side`` likewise: ``single`` sends every call one by one
(``MENACE_BATCH=off``), ``batched`` sends property tests' calls in batches.
``--correct-only`` sends only the correct answer (issue 26's load), not the buggy one in turn.

Starts one ``menace serve`` (the embedded default: SQLite in a scratch folder, ``--workers``
graders) from each tree, both at once, each run as ``python -m menace_course`` with its
tree first on ``PYTHONPATH``. Then, in ``--rounds`` rounds, loads each service in turn
(before, after, before, after...): ``--students`` simulated students each POST an
after_game check (``?wait=30``, a correct and a buggy answer in turn) and send the next
when its report is back, for ``--seconds``. The other service sits idle meanwhile.

Per round and service it prints the checks done, checks per second, and CPU per check
counted by the kernel: the web process alone (``/proc/<pid>/stat``: utime and stime of
every thread of the gunicorn worker that serves the app, not its grader children), and,
where a cpuacct cgroup (v1) can be made, everything the service ran (arbiter, web
process, graders, bubblewrap, sandboxes). Medians over the rounds last. Timings are for
reading, never asserted; the machine's other work shows in checks/s far more than in CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = [
    (REPO / "examples" / "after_game_student.py").read_text(),
    (REPO / "examples" / "after_game_buggy.py").read_text(),
]
TICKS = os.sysconf("SC_CLK_TCK")
CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def own_cpu(pid: int) -> float:
    """CPU seconds ``pid`` itself has used (every thread; not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def children_of(pid: int) -> list[int]:
    """The direct children of ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


class Service:
    """A ``menace serve`` of one tree, in a cgroup of its own where one can be made."""

    def __init__(
        self,
        label: str,
        tree: Path,
        folder: Path,
        workers: int,
        sandbox: list[str],
        switched: dict[str, str] | None = None,
    ) -> None:
        self.label, self.tree = label, tree
        self.folder = folder / label
        self.folder.mkdir()
        self.db = f"sqlite:///{self.folder / 'service.sqlite3'}"
        self.env = {**os.environ, "PYTHONPATH": str(tree)}
        self.env.update(switched or {})
        self.group: Path | None = CPUACCT / f"menace-webcpu-{os.getpid()}-{label}"
        try:
            self.group.mkdir()
        except OSError:
            self.group = None
        argv = [sys.executable, "-m", "menace_course", "serve", "--port", "0", "--db", self.db]
        argv += ["--course", str(REPO), "--workers", str(workers), "--max-queue", "1000"]
        argv += ["--per-student", "5", "--rate-limit", "100000 per minute", *sandbox]
        if self.group is not None:
            argv = ["sh", "-c", f'echo $$ > {self.group / "cgroup.procs"} && exec "$@"', "sh", *argv]
        self.log = self.folder / "serve.log"
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, cwd=tree, env=self.env, start_new_session=True
            )
        self.url = self._wait_for(r"(http://[\d.]+:\d+)")
        self.web = self._web_process()
        self.tokens: list[str] = []

    def _wait_for(self, pattern: str) -> str:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            found = re.search(pattern, self.log.read_text(errors="replace"))
            if found:
                return found.group(1)
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        sys.exit(f"{self.label} did not start:\n{self.log.read_text(errors='replace')[-3000:]}")

    def _web_process(self) -> int:
        """The gunicorn worker (the arbiter's one child) that runs the app."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = children_of(self.process.pid)
            if len(found) == 1:
                return found[0]
            time.sleep(0.1)
        sys.exit(f"{self.label}: no single web process under {self.process.pid}")

    def add_students(self, count: int) -> None:
        names = [f"s{i}" for i in range(count)]
        argv = [sys.executable, "-m", "menace_course", "users", "add", *names]
        done = subprocess.run(
            [*argv, "--db", self.db, "--course", str(REPO)],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.tree,
            check=True,
        )
        self.tokens = [line.split()[1] for line in done.stdout.splitlines() if line.strip()]

    def all_cpu(self) -> float | None:
        """CPU seconds of everything in the service's cgroup (None without one)."""
        if self.group is None:
            return None
        return int((self.group / "cpuacct.usage").read_text()) / 1e9

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=60)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        if self.group is not None:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    self.group.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


def student(url: str, token: str, until: float, done: list[int], errors: list[str], index: int) -> None:
    """Check, wait for the report, check again, until ``until``."""
    n = 0
    while time.monotonic() < until:
        n += 1
        source = SOURCES[n % len(SOURCES)] + f"\n# student {index}, attempt {n}\n"
        request = urllib.request.Request(
            f"{url}/api/v1/checks?wait=30",
            data=json.dumps({"challenge": "after_game", "source": source}).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                if response.status == 200 and json.load(response).get("report"):
                    done[index] += 1
                else:
                    errors.append(f"status {response.status}")
        except (urllib.error.HTTPError, OSError) as error:
            errors.append(type(error).__name__)


def load(service: Service, students: int, seconds: float) -> dict[str, float]:
    """One round of load on ``service``: checks, checks/s, and CPU ms per check."""
    done, errors = [0] * students, []
    web_before, all_before, started = own_cpu(service.web), service.all_cpu(), time.monotonic()
    until = started + seconds
    threads = [
        threading.Thread(target=student, args=(service.url, service.tokens[i], until, done, errors, i))
        for i in range(students)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed, checks = time.monotonic() - started, sum(done)
    web, everything = own_cpu(service.web) - web_before, service.all_cpu()
    result = {
        "checks": checks,
        "errors": len(errors),
        "rate": checks / elapsed,
        "web_ms": web / checks * 1000 if checks else float("nan"),
    }
    if everything is not None and all_before is not None and checks:
        result["all_ms"] = (everything - all_before) / checks * 1000
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another tree to compare with (e.g. a copy of main)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sandbox", choices=["bwrap", "process"], default="bwrap")
    parser.add_argument("--zygote-side-by-side", action="store_true", help="this tree, zygote off and on")
    parser.add_argument("--batch-side-by-side", action="store_true", help="this tree, batches off and on")
    parser.add_argument("--correct-only", action="store_true", help="only the correct answer")
    args = parser.parse_args()
    if args.correct_only:
        del SOURCES[1:]
    sandbox = ["--sandbox", "process", "--i-accept-no-sandbox"] if args.sandbox == "process" else []
    trees = ([("before", args.before.resolve())] if args.before else []) + [("after", REPO)]
    switched: dict[str, dict[str, str]] = {}
    if args.zygote_side_by_side:
        trees = [("scratch", REPO), ("zygote", REPO)]
        switched = {"scratch": {"MENACE_ZYGOTE": "off"}, "zygote": {"MENACE_ZYGOTE": "on"}}
    if args.batch_side_by_side:
        trees = [("single", REPO), ("batched", REPO)]
        switched = {"single": {"MENACE_BATCH": "off"}, "batched": {"MENACE_BATCH": "on"}}
    folder = Path(tempfile.mkdtemp(prefix="menace-bench-webcpu-"))
    services: list[Service] = []
    results: dict[str, list[dict[str, float]]] = {label: [] for label, _ in trees}
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}, sandbox: {args.sandbox}")
    try:
        for label, tree in trees:
            services.append(Service(label, tree, folder, args.workers, sandbox, switched.get(label)))
            services[-1].add_students(args.students)
        for service in services:  # warm: graders started, caches filled
            load(service, args.students, 3)
        for round_ in range(1, args.rounds + 1):
            for service in services if round_ % 2 else services[::-1]:
                r = load(service, args.students, min(max(args.seconds, 1.0), 120.0))
                results[service.label].append(r)
                all_ms = f", all processes {r['all_ms']:.1f} ms" if "all_ms" in r else ""
                print(
                    f"round {round_} {service.label:7}: {r['checks']:.0f} checks, {r['rate']:.1f}/s,"
                    f" web process {r['web_ms']:.2f} ms/check{all_ms}, errors {r['errors']:.0f}",
                    flush=True,
                )
    finally:
        for service in services:
            service.stop()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\nmedians over {args.rounds} rounds (load average after: {os.getloadavg()[0]:.2f}):")
    for label, rounds in results.items():
        if not rounds:
            continue
        line = f"  {label:7}: web process {statistics.median(r['web_ms'] for r in rounds):.2f} ms/check"
        if all("all_ms" in r for r in rounds):
            line += f", all processes {statistics.median(r['all_ms'] for r in rounds):.1f} ms/check"
        line += f", {statistics.median(r['rate'] for r in rounds):.1f} checks/s"
        print(line)


if __name__ == "__main__":
    main()
