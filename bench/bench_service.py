"""The check service under load, next to ``menace check`` in the same run.

Starts a real ``menace serve`` (gunicorn, SQLite in a scratch folder, bubblewrap, one
grader process per core) on 127.0.0.1 and a free port, adds simulated students, and
measures, all against that one process:

1. ``menace check`` on a correct after_game, a few times (the baseline: one student, one
   process, no service);
2. latency of one check through the API (POST ``?wait=30``, answer with the report) at 1,
   10 and 50 concurrent students, correct and buggy answers alternately; each student
   reads the feedback for a while before checking again (``--think``, 2 s on average,
   so 50 students ask for about 25 checks a second, the goal's rate): p50 and p95;
3. sustained checks per second: 8 students checking back to back, the service saturated;
4. the service's memory (the resident memory of every process of its tree: arbiter, web
   process, graders, sandboxes) every 500 checks over a long run (10,000 checks by
   default); and errors (any answer that is not a finished report) throughout.

Traffic goes to 127.0.0.1 only; every loop is bounded by a count and a time. Goals
(issue 10): p50 <= 0.15 s at 1 student, p95 <= 1.5 s at 50, >= 25 checks/s sustained,
flat memory, zero errors. Timings are reported, never asserted.

    python3 bench/bench_service.py [--seconds 30] [--think 2] [--checks 10000] [--workers N] [--json OUT]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CORRECT = (REPO / "examples" / "after_game_student.py").read_text()
BUGGY = (REPO / "examples" / "after_game_buggy.py").read_text()
LEVELS = (1, 10, 50)


def menace_command() -> str:
    return shutil.which("menace", path=str(Path(sys.executable).parent)) or "menace"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class Service:
    """A ``menace serve`` process for the bench."""

    def __init__(self, folder: Path, workers: int, env: dict[str, str]) -> None:
        self.folder = folder
        self.db = f"sqlite:///{folder / 'service.sqlite3'}"
        self.env = env
        argv = [menace_command(), "serve", "--port", "0", "--db", self.db, "--workers", str(workers)]
        argv += ["--course", str(REPO), "--max-queue", "1000", "--per-student", "5"]
        argv += ["--rate-limit", "100000 per minute"]
        self.log = (folder / "serve.log").open("wb")
        self.process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=self.log, env=env, start_new_session=True
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().decode()
        found = re.search(r"http://([\d.]+):(\d+)", line)
        if not found:
            sys.exit(f"menace serve did not start: {line}{(folder / 'serve.log').read_text()}")
        self.host, self.port = found.group(1), int(found.group(2))
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def add_students(self, count: int) -> list[str]:
        names = [f"student{i:03d}" for i in range(count)]
        done = subprocess.run(
            [menace_command(), "users", "add", *names, "--db", self.db, "--course", str(REPO)],
            capture_output=True,
            text=True,
            env=self.env,
            check=True,
        )
        return [line.split()[1] for line in done.stdout.splitlines()]

    def memory_bytes(self) -> int:
        """Resident memory of the service's whole process tree."""
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                children.setdefault(parent, []).append(int(entry.name))
        total, todo = 0, [self.process.pid]
        while todo:
            pid = todo.pop()
            todo += children.get(pid, [])
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            found = re.search(r"VmRSS:\s+(\d+) kB", status)
            total += int(found.group(1)) * 1024 if found else 0
        return total

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)


class Student:
    """One simulated student: a kept-alive connection and a token."""

    def __init__(self, service: Service, token: str) -> None:
        self.service = service
        self.token = token
        self.connection = http.client.HTTPConnection(service.host, service.port, timeout=60)
        self.turn = 0

    def check(self) -> tuple[float, str | None]:
        """One check, start to report: its seconds, and what went wrong (None: it came back done)."""
        self.turn += 1
        body = json.dumps({"challenge": "after_game", "source": CORRECT if self.turn % 2 else BUGGY})
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        started = time.perf_counter()
        for attempt in (1, 2):
            try:
                self.connection.request("POST", "/api/v1/checks?wait=30", body, headers)
                response = self.connection.getresponse()
                data = json.loads(response.read())
                break
            except (OSError, http.client.HTTPException, ValueError) as error:
                self.connection.close()
                self.connection = http.client.HTTPConnection(self.service.host, self.service.port, timeout=60)
                # The server closes a kept-alive connection after 5 s idle (gunicorn's keepalive):
                # the request never reached it, so send it again on a new connection.
                closed_while_idle = isinstance(error, (BrokenPipeError, http.client.RemoteDisconnected))
                if attempt == 2 or not closed_while_idle:
                    return time.perf_counter() - started, f"no answer: {error!r}"
        elapsed = time.perf_counter() - started
        if response.status != 200 or data.get("status") != "done":
            return elapsed, f"HTTP {response.status}: {json.dumps(data)[:200]}"
        report = data["report"]
        if report["status"] != "checked":
            return elapsed, f"report status {report['status']}: {report.get('reason', '')}"[:200]
        return elapsed, None


def load(
    students: list[Student], seconds: float, limit: int, think: float = 0.0, on_check: Any = None
) -> dict[str, Any]:
    """Every student checks, reads for ``think`` seconds on average (0: back to back), and again,
    until ``seconds`` pass or ``limit`` checks are done."""
    latencies: list[float] = []
    errors = 0
    problems: list[str] = []  # the first few errors, as they came
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def run(student: Student) -> None:
        nonlocal errors
        pause = random.Random(student.token)  # the same pauses in every run
        if think:
            time.sleep(pause.uniform(0, think))  # students do not all start at once
        while time.monotonic() < deadline:
            with lock:
                if len(latencies) + errors >= limit:
                    return
            elapsed, problem = student.check()
            with lock:
                latencies.append(elapsed)
                if problem is not None:
                    errors += 1
                    if len(problems) < 5:
                        problems.append(problem)
                if on_check is not None:
                    on_check(len(latencies))
            if think:
                time.sleep(
                    min(pause.uniform(0.5 * think, 1.5 * think), max(0.0, deadline - time.monotonic()))
                )

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(s,)) for s in students]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    return {
        "students": len(students),
        "checks": len(latencies),
        "errors": errors,
        "problems": problems,
        "p50": statistics.median(latencies),
        "p95": percentile(latencies, 0.95),
        "per_second": len(latencies) / wall,
    }


def time_menace_check(env: dict[str, str], runs: int) -> float:
    argv = [
        menace_command(),
        "check",
        str(REPO / "examples" / "after_game_student.py"),
        "--challenge",
        "after_game",
    ]
    times = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        subprocess.run(argv, cwd=REPO, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times[1:])  # the first is cold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each concurrency level")
    parser.add_argument("--checks", type=int, default=10_000, help="checks in the memory run")
    parser.add_argument(
        "--memory-seconds", type=float, default=1800.0, help="longest the memory run may take"
    )
    parser.add_argument(
        "--think", type=float, default=2.0, help="seconds a student reads before checking again"
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="grader processes")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="menace-bench-service-"))
    env = {**os.environ, "MENACE_CACHE_DIR": str(folder / "cache")}
    results: dict[str, Any] = {"cores": os.cpu_count(), "workers": args.workers}
    results["menace_check_p50"] = time_menace_check(env, 7)
    print(f"menace check (one process per check): median {results['menace_check_p50']:.3f} s")
    service = Service(folder, args.workers, env)
    try:
        tokens = service.add_students(max(LEVELS))
        students = [Student(service, t) for t in tokens]
        warm = load(students[:1], 30.0, 5)  # the graders import the tests on their first check
        print(f"warm-up: {warm['checks']} checks")
        results["levels"] = []
        for level in LEVELS:
            row = load(students[:level], args.seconds, 100_000, think=args.think)
            results["levels"].append(row)
            print(
                f"{level:>3} students: p50 {row['p50']:.3f} s  p95 {row['p95']:.3f} s  "
                f"{row['per_second']:.1f} checks/s  ({row['checks']} checks, {row['errors']} errors)"
            )
            for problem in row["problems"]:
                print(f"      error: {problem}")
        samples: list[tuple[int, int]] = [(0, service.memory_bytes())]

        def sample(done: int) -> None:
            if done % 500 == 0:
                samples.append((done, service.memory_bytes()))

        long_run = load(students[:8], args.memory_seconds, args.checks, on_check=sample)  # saturated
        samples.append((long_run["checks"], service.memory_bytes()))
        results["long_run"] = long_run
        results["memory_mb"] = [(n, round(b / 2**20, 1)) for n, b in samples]
        print(
            f"long run: {long_run['checks']} checks at {long_run['per_second']:.1f}/s, "
            f"{long_run['errors']} errors, p95 {long_run['p95']:.3f} s"
        )
        for problem in long_run["problems"]:
            print(f"      error: {problem}")
        mb = [m for _, m in results["memory_mb"]]
        print(f"service memory (MB, every 500 checks): first {mb[0]}, peak {max(mb)}, last {mb[-1]}")
        print(" ".join(f"{n}:{m}" for n, m in results["memory_mb"]))
    finally:
        service.stop()
    one = results["levels"][0]
    print(
        f"ratio: menace check / service p50 at 1 student = {results['menace_check_p50'] / one['p50']:.1f} x"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
