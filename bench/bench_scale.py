"""How the check service scales out: one web process plus 1, 2 and 4 ``menace worker``
processes on this machine, all on a local PostgreSQL, under the same load.

    python3 bench/bench_scale.py [--seconds 20] [--students 8] [--workers 1,2,4]
                                 [--pg postgresql:///postgres] [--sandbox bwrap|process]

For each number of workers (each ``menace worker --concurrency 1``: one grader process),
``--students`` simulated students each send a check (``POST /api/v1/checks?wait=30``), wait
for its report, and send the next, for ``--seconds``. Reported per run: checks per second,
p50 and p95 latency (send to report), errors, and the CPU seconds one check costs in the
web process, in the workers (graders and sandboxes included) and in the database's
backends: the figures docs/scaling.md sizes a cohort from. Last, the same load on the
embedded pool (``menace serve --workers 2``), side by side.

Everything runs on 127.0.0.1; each run is bounded by ``--seconds`` and a check by 30 s.
The bench makes its own database on the PostgreSQL server ``--pg`` names (default
``$MENACE_TEST_POSTGRES_URL``, else ``postgresql:///postgres``) and drops it at the end.
Other work on the machine shows in the numbers: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = [
    (REPO / "examples" / "after_game_student.py").read_text(),
    (REPO / "examples" / "after_game_buggy.py").read_text(),
]
TICKS = os.sysconf("SC_CLK_TCK")


# -- processes -----------------------------------------------------------------------------


class Proc:
    """A ``menace`` process of the bench, its output in a file."""

    def __init__(self, folder: Path, label: str, argv: list[str]) -> None:
        self.label = label
        self.log = folder / f"{label}.log"
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "menace_course", *argv],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=folder,
                start_new_session=True,
            )

    def wait_for(self, pattern: str, timeout: float = 180) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.log.read_text(errors="replace"))
            if found:
                return found
            if self.process.poll() is not None:
                sys.exit(f"{self.label} ended:\n{self.log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.1)
        sys.exit(f"{self.label} did not start:\n{self.log.read_text(errors='replace')[-3000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """CPU seconds used so far by each process, its finished children included."""
    found = {}
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            found[pid] = sum(int(value) for value in fields[11:15]) / TICKS
    return found


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                parent = int(Path(entry, "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    found, stack = [pid], list(children.get(pid, []))
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(children.get(child, []))
    return found


def spent(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds spent between two readings (a process that appeared counts from zero)."""
    return sum(value - before.get(pid, 0.0) for pid, value in after.items())


# -- the database --------------------------------------------------------------------------


@contextlib.contextmanager
def bench_database(admin: str) -> Iterator[str]:
    import psycopg
    from sqlalchemy.engine import make_url

    admin_url = make_url(admin)
    conninfo = admin_url.set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"menace_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin_url.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
            )
            connection.execute(f'DROP DATABASE IF EXISTS "{name}"')


def _conninfo(db_url: str) -> str:
    from sqlalchemy.engine import make_url

    return str(make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False))


def wal_bytes(db_url: str) -> int:
    """WAL the whole PostgreSQL server has written so far (other databases' too)."""
    import psycopg

    with psycopg.connect(_conninfo(db_url), autocommit=True) as connection:
        row = connection.execute("SELECT wal_bytes FROM pg_stat_wal").fetchone()
    return int(row[0]) if row else 0


def stored_bytes_per_attempt(db_url: str) -> float:
    """The attempts table's size on disk (indexes and TOAST included) per attempt."""
    import psycopg

    with psycopg.connect(_conninfo(db_url), autocommit=True) as connection:
        row = connection.execute(
            "SELECT pg_total_relation_size('attempts'), (SELECT count(*) FROM attempts)"
        ).fetchone()
    return row[0] / row[1] if row and row[1] else float("nan")


def backends(db_url: str) -> list[int]:
    """Process ids of the PostgreSQL backends connected to the bench's database."""
    import psycopg
    from sqlalchemy.engine import make_url

    parsed = make_url(db_url)
    conninfo = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (parsed.database,),
        ).fetchall()
    return [int(pid) for (pid,) in rows]


# -- the load ------------------------------------------------------------------------------


@dataclass
class Run:
    """What one run measured."""

    label: str
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    cpu_web: float = 0.0
    cpu_workers: float = 0.0
    cpu_database: float = 0.0
    wal: int = 0

    @property
    def checks(self) -> int:
        return len(self.latencies)

    @property
    def rate(self) -> float:
        return self.checks / self.seconds if self.seconds else 0.0

    def quantile(self, q: float) -> float:
        if len(self.latencies) < 2:
            return self.latencies[0] if self.latencies else float("nan")
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[round(q * 100) - 1]

    def per_check(self, cpu: float) -> float:
        return cpu / self.checks * 1000 if self.checks else float("nan")


def student(url: str, token: str, until: float, run: Run, lock: threading.Lock, index: int) -> None:
    """One simulated student: check, read the report, check again, until ``until``."""
    n = 0
    while time.monotonic() < until:
        n += 1
        source = SOURCES[n % 2] + f"\n# student {index}, attempt {n}\n"
        body = json.dumps({"challenge": "after_game", "source": source}).encode()
        request = urllib.request.Request(
            f"{url}/api/v1/checks?wait=30",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                answer = json.load(response)
                problem = (
                    None if response.status == 200 and answer.get("report") else f"status {response.status}"
                )
        except urllib.error.HTTPError as error:
            problem = f"HTTP {error.code}"
            if error.code == 429:
                time.sleep(float(error.headers.get("Retry-After", "1")))
        except OSError as error:
            problem = type(error).__name__
        elapsed = time.monotonic() - started
        with lock:
            if problem is None:
                run.latencies.append(elapsed)
            else:
                run.errors[problem] = run.errors.get(problem, 0) + 1


def load(
    url: str, tokens: list[str], seconds: float, run: Run, web: int, workers: list[int], db_url: str
) -> None:
    """``len(tokens)`` students for ``seconds``, with the CPU each part spent meanwhile."""
    lock = threading.Lock()
    web_before, workers_before = cpu_seconds(tree(web)), cpu_seconds([p for w in workers for p in tree(w)])
    database_before = cpu_seconds(backends(db_url))
    wal_before = wal_bytes(db_url)
    started = time.monotonic()
    threads = [
        threading.Thread(target=student, args=(url, token, started + seconds, run, lock, i))
        for i, token in enumerate(tokens)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    run.seconds = time.monotonic() - started
    run.cpu_web = spent(web_before, cpu_seconds(tree(web)))
    run.cpu_workers = spent(workers_before, cpu_seconds([p for w in workers for p in tree(w)]))
    run.cpu_database = spent(database_before, cpu_seconds(backends(db_url)))
    run.wal = wal_bytes(db_url) - wal_before


def warm_up(url: str, token: str) -> None:
    run = Run("warm-up")
    student(url, token, time.monotonic() + 3, run, threading.Lock(), 999)
    if not run.latencies:
        sys.exit(f"the service checks nothing: {run.errors}")


# -- a worker killed mid-load ---------------------------------------------------------------


def worker_argv(db_url: str, name: str, sandbox: list[str]) -> list[str]:
    return ["worker", "--db", db_url, "--course", str(REPO), "--concurrency", "1", "--name", name, *sandbox]


def unfinished(db_url: str) -> int:
    import psycopg

    with psycopg.connect(_conninfo(db_url), autocommit=True) as connection:
        row = connection.execute("SELECT count(*) FROM attempts WHERE status <> 'done'").fetchone()
    return int(row[0]) if row else -1


def reruns(db_url: str, since: float) -> tuple[int, int]:
    """Attempts accepted since ``since`` (epoch seconds), and those a grader started twice or more."""
    import psycopg

    with psycopg.connect(_conninfo(db_url), autocommit=True) as connection:
        row = connection.execute(
            "SELECT count(*), count(*) FILTER (WHERE runs >= 2) FROM attempts "
            "WHERE created_at >= to_timestamp(%s)",
            (since,),
        ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def kill_run(
    folder: Path, db_url: str, url: str, web: int, tokens: list[str], seconds: float, sandbox: list[str]
) -> None:
    """Two workers under load; a third of the way in, ``kill -9`` one of them.

    Then: every accepted check must be recorded, the killed worker's checks once more
    elsewhere, none twice (the workers' logs say ``recorded`` once per attempt).
    """
    workers = [Proc(folder, f"kill-{i}", worker_argv(db_url, f"k{i}", sandbox)) for i in range(2)]
    try:
        for worker in workers:
            worker.wait_for(r"taking checks")
        warm_up(url, tokens[-1])
        since = time.time()
        run = Run("queue, 2 workers, one kill -9")
        victim = workers[0].process
        timer = threading.Timer(seconds / 3, lambda: os.kill(victim.pid, signal.SIGKILL))
        timer.start()
        load(url, tokens, seconds, run, web, [w.process.pid for w in workers], db_url)
        timer.join()
        deadline = time.monotonic() + 120
        while unfinished(db_url) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = unfinished(db_url)
        accepted, twice_run = reruns(db_url, since)
        logs = "".join(w.log.read_text(errors="replace") for w in workers)
        recorded = re.findall(r"attempt (\S+) recorded \(", logs)
        doubles = len(recorded) - len(set(recorded))
        given_back = len(re.findall(r"was running on a worker that died", logs))
        slowest = max(run.latencies, default=float("nan"))
        print(
            f"\nkill -9 of one of 2 workers after {seconds / 3:.0f} s of {seconds:g} s: {accepted} checks "
            f"accepted, {accepted - left} recorded ({left} not); {given_back} job(s) given back, "
            f"{twice_run} started twice (the grader had begun), "
            f"{doubles} recorded twice; slowest answer {slowest:.1f} s (the killed worker's checks wait for "
            f"its heartbeat to go stale and the sweep); {run.rate:.1f} checks/s over the run, "
            f"{sum(run.errors.values())} requests without a report"
        )
    finally:
        for worker in workers:
            worker.stop()


def paired_rounds(
    folder: Path,
    db_url: str,
    url: str,
    web: int,
    tokens: list[str],
    seconds: float,
    sandbox: list[str],
    rounds: int,
) -> list[tuple[float, float]]:
    """1 worker, then 2, back to back, ``rounds`` times: (checks/s with 1, with 2) per round.

    Other work on a shared machine drifts over minutes; a ratio taken within one round,
    its two halves seconds apart, drifts much less than runs minutes apart.
    """
    first = Proc(folder, "pair-0", worker_argv(db_url, "p0", sandbox))
    pairs = []
    try:
        first.wait_for(r"taking checks")
        warm_up(url, tokens[-1])
        for index in range(rounds):
            one = Run("1 worker")
            load(url, tokens, seconds, one, web, [first.process.pid], db_url)
            second = Proc(folder, f"pair-1-{index}", worker_argv(db_url, "p1", sandbox))
            try:
                second.wait_for(r"taking checks")
                two = Run("2 workers")
                load(url, tokens, seconds, two, web, [first.process.pid, second.process.pid], db_url)
            finally:
                second.stop()
            pairs.append((one.rate, two.rate))
            print(f"  round {index + 1}: {one.rate:.1f} -> {two.rate:.1f} checks/s", flush=True)
    finally:
        first.stop()
    return pairs


# -- the bench -----------------------------------------------------------------------------


def serve_argv(db_url: str, sandbox: list[str], *more: str) -> list[str]:
    return [
        "serve",
        "--port",
        "0",
        "--db",
        db_url,
        "--course",
        str(REPO),
        "--max-queue",
        "10000",
        "--per-student",
        "5",
        "--rate-limit",
        "100000 per minute",
        *sandbox,
        *more,
    ]


def add_students(db_url: str, count: int) -> list[str]:
    names = [f"bench{i}" for i in range(count + 1)]
    added = subprocess.run(
        [sys.executable, "-m", "menace_course", "users", "add", *names, "--db", db_url],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return [line.split()[1] for line in added.stdout.splitlines() if line.strip()]


def report(runs: list[Run], students: int, per_attempt: float) -> None:
    print(f"\n{students} students, each sending its next check when the last one's report is back")
    print(
        f"{'run':32} {'checks':>7} {'checks/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'errors':>7}"
        f" {'CPU ms/check: web':>18} {'workers':>8} {'database':>9}"
    )
    for run in runs:
        print(
            f"{run.label:32} {run.checks:7d} {run.rate:9.1f} {run.quantile(0.5) * 1000:8.0f}"
            f" {run.quantile(0.95) * 1000:8.0f} {sum(run.errors.values()):7d}"
            f" {run.per_check(run.cpu_web):18.1f} {run.per_check(run.cpu_workers):8.1f}"
            f" {run.per_check(run.cpu_database):9.1f}"
        )
        for problem, count in run.errors.items():
            print(f"{'':32}   {count} x {problem}")
    wal = [r.wal / r.checks for r in runs if r.checks]
    if wal:
        print(
            f"\ndatabase: {statistics.median(wal) / 1024:.1f} KB of WAL per check (whole server, median of "
            f"the runs), {per_attempt / 1024:.1f} KB on disk per stored attempt (source, report, indexes)"
        )
    by_workers = {r.label: r for r in runs}
    one, two = by_workers.get("queue, 1 worker"), by_workers.get("queue, 2 workers")
    if one and two and one.rate:
        print(
            f"\nspeedup from 1 to 2 workers: {two.rate / one.rate:.2f} x (at most 2 on an idle 2-core "
            "machine; other work on the machine moves it either way)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each run (at most 300)")
    parser.add_argument("--students", type=int, default=8, help="simulated students (at most 200)")
    parser.add_argument("--workers", default="1,2,4", help="numbers of worker processes, e.g. 1,2,4")
    parser.add_argument("--pg", default=os.environ.get("MENACE_TEST_POSTGRES_URL", "postgresql:///postgres"))
    parser.add_argument("--sandbox", choices=["bwrap", "process"], default="bwrap")
    parser.add_argument("--no-local", action="store_true", help="skip the embedded pool's run")
    parser.add_argument("--no-kill", action="store_true", help="skip the run that kills a worker")
    parser.add_argument(
        "--rounds", type=int, default=3, help="paired 1-then-2-worker rounds for the speedup (0: none)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    seconds = min(max(args.seconds, 1.0), 300.0)
    students = min(max(args.students, 1), 200)
    counts = [int(n) for n in args.workers.split(",")]
    rounds = min(max(args.rounds, 0), 10)
    sandbox = ["--sandbox", "process", "--i-accept-no-sandbox"] if args.sandbox == "process" else []
    print(
        f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}, sandbox: {args.sandbox}, "
        f"{seconds:g} s per run"
    )
    runs: list[Run] = []
    folder = Path(tempfile.mkdtemp(prefix="menace-bench-scale-"))
    with bench_database(args.pg) as db_url:
        web = Proc(folder, "serve", serve_argv(db_url, sandbox, "--queue", "procrastinate"))
        url = web.wait_for(r"menace serve: (http://\S+)").group(1)
        tokens = add_students(db_url, students)
        try:
            for count in counts:
                workers = [
                    Proc(
                        folder,
                        f"worker-{count}-{i}",
                        [
                            "worker",
                            "--db",
                            db_url,
                            "--course",
                            str(REPO),
                            "--concurrency",
                            "1",
                            "--name",
                            f"w{i}",
                            *sandbox,
                        ],
                    )
                    for i in range(count)
                ]
                try:
                    for worker in workers:
                        worker.wait_for(r"taking checks")
                    warm_up(url, tokens[-1])
                    run = Run(f"queue, {count} worker{'s' if count > 1 else ''}")
                    load(
                        url,
                        tokens[:students],
                        seconds,
                        run,
                        web.process.pid,
                        [w.process.pid for w in workers],
                        db_url,
                    )
                    runs.append(run)
                    print(f"  {run.label}: {run.rate:.1f} checks/s", flush=True)
                finally:
                    for worker in workers:
                        worker.stop()
            if rounds:
                pairs = paired_rounds(
                    folder, db_url, url, web.process.pid, tokens[:students], seconds / 2, sandbox, rounds
                )
                ratios = sorted(two / one for one, two in pairs if one)
                print(
                    f"\n1 -> 2 workers, {len(pairs)} paired rounds of {seconds / 2:g} s + {seconds / 2:g} s: "
                    + ", ".join(f"{one:.1f} -> {two:.1f}" for one, two in pairs)
                    + f" checks/s; speedup median {statistics.median(ratios):.2f} x "
                    f"(range {ratios[0]:.2f}-{ratios[-1]:.2f})"
                )
            if not args.no_kill:
                kill_run(folder, db_url, url, web.process.pid, tokens[:students], seconds, sandbox)
        finally:
            web.stop()
        if not args.no_local:
            local = Proc(folder, "serve-local", serve_argv(db_url, sandbox, "--workers", "2"))
            url = local.wait_for(r"menace serve: (http://\S+)").group(1)
            try:
                warm_up(url, tokens[-1])
                run = Run("embedded pool, 2 graders")
                load(url, tokens[:students], seconds, run, local.process.pid, [], db_url)
                runs.append(run)
                print(f"  {run.label}: {run.rate:.1f} checks/s", flush=True)
            finally:
                local.stop()
        per_attempt = stored_bytes_per_attempt(db_url)
    report(runs, students, per_attempt)
    print(f"load average after: {os.getloadavg()[0]:.2f}; logs in {folder}")
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {
                        "run": r.label,
                        "checks": r.checks,
                        "checks_per_second": round(r.rate, 2),
                        "p50_ms": round(r.quantile(0.5) * 1000),
                        "p95_ms": round(r.quantile(0.95) * 1000),
                        "errors": r.errors,
                        "wal_bytes_per_check": round(r.wal / r.checks) if r.checks else None,
                        "cpu_ms_per_check": {
                            "web": round(r.per_check(r.cpu_web), 2),
                            "workers": round(r.per_check(r.cpu_workers), 2),
                            "database": round(r.per_check(r.cpu_database), 2),
                        },
                    }
                    for r in runs
                ],
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
