"""The check service under abuse: does a student's check still come back while others attack?

Starts a real ``menace serve`` (SQLite in a scratch folder, the sandbox ``menace serve``
picks, ``--workers`` graders) on 127.0.0.1 and a free port, and runs four scenarios against
it, each bounded in connections (at most 200) and in time (``--seconds``, 30 by default,
never more than 60). In each, a *victim* (a signed-in student) checks a correct answer
over and over (``POST ?wait=30``, one at a time) and asks ``/healthz``; the bench prints the
victim's median latency quiet (nobody else) and under attack, and their ratio:

1. ``flood``: one signed-in student keeps ``--per-student`` checks waiting at all times,
   slow ones (3 s of sleep at import) and fast ones alternately, sending the next the
   moment one finishes or a 429 ends;
2. ``flood-open`` (a second service, ``--open``): 50 anonymous addresses do the same, each
   from its own loopback source address (127.0.1.N, still this machine's loopback);
3. ``slowloris``: 50 clients send a request head a byte every 2 s, 50 send a body 10 bytes
   every 2 s, and 100 kept-alive connections sit idle;
4. ``wait-hold``: one student whose check hangs (until the sandbox ends it) holds 50
   ``GET ?wait=30`` requests open on it, each sent again as soon as it is answered.

The goal (issue 22): under ``flood``, the victim's check within 2x its quiet time plus one
of the flood's checks (the bound is printed); under ``slowloris`` and ``wait-hold``,
``/healthz`` and the victim's check within 2x their quiet latency. Figures are reported,
never asserted (they depend on the machine and its load).

    python3 bench/bench_abuse.py [--seconds 30] [--workers 2] [--only flood,slowloris] [--json OUT]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CORRECT = (REPO / "examples" / "after_game_student.py").read_text()
SLOW = "import time\ntime.sleep(3.0)\n\n" + CORRECT
STUCK = CORRECT.replace(
    "    new_beads = list(beads)", "    import time\n\n    time.sleep(60)\n    new_beads = list(beads)"
)
HOST = "127.0.0.1"
MAX_CONNECTIONS = 200
SCENARIOS = ("flood", "flood-open", "slowloris", "wait-hold")


def menace_command() -> str:
    return shutil.which("menace", path=str(Path(sys.executable).parent)) or "menace"


class Service:
    """A ``menace serve`` process on 127.0.0.1 for the bench."""

    def __init__(self, folder: Path, workers: int, *options: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.db = f"sqlite:///{folder / 'service.sqlite3'}"
        argv = [menace_command(), "serve", "--host", HOST, "--port", "0", "--db", self.db]
        argv += ["--workers", str(workers), "--course", str(REPO), "--rate-limit", "600 per minute", *options]
        self.log = (folder / "serve.log").open("wb")
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self.log, start_new_session=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline().decode()
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if not found:
            sys.exit(f"menace serve did not start: {line}{(folder / 'serve.log').read_text()}")
        self.port = int(found.group(1))
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def students(self, count: int) -> list[str]:
        names = [f"s{time.monotonic_ns()}-{i}" for i in range(count)]
        done = subprocess.run(
            [menace_command(), "users", "add", *names, "--db", self.db, "--course", str(REPO)],
            capture_output=True,
            text=True,
            check=True,
        )
        return [line.split()[1] for line in done.stdout.splitlines()]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def call(
    port: int, method: str, path: str, body: Any = None, token: str | None = None, source: str | None = None
) -> tuple[int, dict[str, Any], float]:
    """One request on a new connection: status, JSON, seconds."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    began = time.perf_counter()
    connection = http.client.HTTPConnection(
        HOST, port, timeout=90, source_address=(source, 0) if source else None
    )
    try:
        connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = connection.getresponse()
        raw = response.read()
        try:
            data = json.loads(raw)
        except ValueError:
            data = {}
        return response.status, data, time.perf_counter() - began
    except (OSError, http.client.HTTPException):
        return 0, {}, time.perf_counter() - began
    finally:
        connection.close()


def victim_check(port: int, token: str, text: str = CORRECT) -> float | None:
    """Seconds for one of the victim's checks, start to report (None: no report came back)."""
    code, data, seconds = call(
        port, "POST", "/api/v1/checks?wait=30", {"challenge": "after_game", "source": text}, token
    )
    while code == 202 or (code == 200 and data.get("status") != "done"):
        code, data, more = call(port, "GET", f"/api/v1/checks/{data['id']}?wait=30", token=token)
        seconds += more
    return seconds if code == 200 and data.get("status") == "done" else None


def healthz(port: int) -> float | None:
    code, _, seconds = call(port, "GET", "/healthz")
    return seconds if code in (200, 503) else None


def sample(measure: Callable[[], float | None], seconds: float, at_most: int = 40) -> list[float]:
    """``measure()`` over and over for ``seconds`` (at most ``at_most`` times); the figures it gave."""
    found: list[float] = []
    deadline = time.monotonic() + seconds
    failures = 0
    while time.monotonic() < deadline and len(found) < at_most:
        value = measure()
        if value is None:
            failures += 1
        else:
            found.append(value)
    if failures:
        print(f"    ({failures} request(s) without an answer)")
    return found


class Attack:
    """Threads that attack until :meth:`stop`; at most :data:`MAX_CONNECTIONS` connections in all."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.sockets: list[socket.socket] = []
        self.check_seconds: list[float] = []
        self.lock = threading.Lock()

    def run(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self.threads.append(thread)

    def stop(self) -> None:
        self.stopping.set()
        for held in self.sockets:
            with contextlib.suppress(OSError):
                held.close()
        deadline = time.monotonic() + 5  # those still in a request end when the service stops
        for thread in self.threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))


def flooder(attack: Attack, port: int, token: str | None, source: str | None) -> None:
    """Keep one check waiting, slow and fast ones alternately (run ``--per-student`` of these per student)."""
    turn = 0
    while not attack.stopping.is_set():
        turn += 1
        text = SLOW if turn % 2 else CORRECT
        code, data, seconds = call(
            port, "POST", "/api/v1/checks?wait=30", {"challenge": "after_game", "source": text}, token, source
        )
        if code == 429 or code == 0:
            attack.stopping.wait(0.2)
            continue
        while code == 200 and data.get("status") != "done" and not attack.stopping.is_set():
            code, data, more = call(
                port, "GET", f"/api/v1/checks/{data['id']}?wait=30", token=token, source=source
            )
            seconds += more
        if code == 200 and data.get("status") == "done":
            with attack.lock:
                attack.check_seconds.append(seconds)


def _connect() -> socket.socket:
    return socket.create_connection((HOST, PORT_HOLDER[0]), timeout=10)


PORT_HOLDER = [0]


def slow_client(attack: Attack, head: bytes, trickle: bytes) -> None:
    """Send ``head``, then ``trickle`` a little every 2 s, never finishing the request."""
    try:
        connection = _connect()
    except OSError:
        return
    attack.sockets.append(connection)
    with contextlib.suppress(OSError):
        connection.sendall(head)
        while not attack.stopping.wait(2.0):
            connection.sendall(trickle)


def idle_client(attack: Attack) -> None:
    """One answered request on a kept-alive connection, then silence."""
    try:
        connection = _connect()
        attack.sockets.append(connection)
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        connection.recv(65536)
    except OSError:
        return
    attack.stopping.wait()


def wait_holder(attack: Attack, port: int, token: str, attempt_id: str) -> None:
    while not attack.stopping.is_set():
        call(port, "GET", f"/api/v1/checks/{attempt_id}?wait=30", token=token)


def measure(port: int, token: str, seconds: float, what: str) -> dict[str, float]:
    """The victim's median check and ``/healthz`` latency over ``seconds``."""
    checks = sample(lambda: victim_check(port, token), seconds * 0.7, at_most=15)
    health = sample(lambda: healthz(port), seconds * 0.3, at_most=30)
    found = {
        "check_p50": statistics.median(checks) if checks else float("nan"),
        "check_max": max(checks) if checks else float("nan"),
        "healthz_p50": statistics.median(health) if health else float("nan"),
        "healthz_max": max(health) if health else float("nan"),
    }
    print(
        f"  {what:<12} check p50 {found['check_p50']:.3f} s"
        f" (max {found['check_max']:.3f}, {len(checks)} checks)"
        f"   /healthz p50 {found['healthz_p50']:.4f} s (max {found['healthz_max']:.4f})"
    )
    return found


def report(name: str, quiet: dict[str, float], attacked: dict[str, float], extra: str = "") -> dict[str, Any]:
    ratio_check = attacked["check_p50"] / quiet["check_p50"]
    ratio_health = attacked["healthz_p50"] / quiet["healthz_p50"]
    print(f"  => {name}: check x{ratio_check:.2f}, /healthz x{ratio_health:.2f} under attack{extra}")
    return {"quiet": quiet, "attacked": attacked, "check_ratio": ratio_check, "healthz_ratio": ratio_health}


@contextlib.contextmanager
def service(folder: Path, workers: int, *options: str) -> Iterator[Service]:
    running = Service(folder, workers, *options)
    try:
        yield running
    finally:
        running.stop()


def flood(folder: Path, workers: int, seconds: float, anonymous: bool) -> dict[str, Any]:
    options = ("--open",) if anonymous else ()
    with service(folder, workers, *options) as running:
        port = running.port
        victim, attacker = running.students(2)
        call(port, "POST", "/api/v1/checks?wait=30", {"challenge": "after_game", "source": CORRECT}, victim)
        quiet = measure(port, victim, seconds * 0.3, "quiet")
        slow_check = victim_check(port, victim, SLOW) or float("nan")
        attack = Attack()
        if anonymous:  # 50 addresses, each with up to 3 checks waiting: 150 threads
            for n in range(50):
                for _ in range(3):
                    attack.run(flooder, attack, port, None, f"127.0.1.{n + 1}")
        else:
            for _ in range(3):
                attack.run(flooder, attack, port, attacker, None)
        time.sleep(seconds * 0.1)  # let the flood fill its lanes
        attacked = measure(port, victim, seconds * 0.55, "under flood")
        attack.stop()
        longest = max(attack.check_seconds, default=float("nan"))
        bound = 2 * quiet["check_p50"] + slow_check
        result = report(
            "flood-open" if anonymous else "flood",
            quiet,
            attacked,
            f"; goal for the check: <= 2 x quiet + one slow check = {bound:.2f} s"
            f" (a slow check takes {slow_check:.2f} s alone; the flood's took up to {longest:.2f} s each)",
        )
        result["bound"] = bound
        return result


def slowloris(folder: Path, workers: int, seconds: float) -> dict[str, Any]:
    with service(folder, workers) as running:
        port = PORT_HOLDER[0] = running.port
        (victim,) = running.students(1)
        call(port, "POST", "/api/v1/checks?wait=30", {"challenge": "after_game", "source": CORRECT}, victim)
        quiet = measure(port, victim, seconds * 0.4, "quiet")
        attack = Attack()
        for _ in range(50):
            attack.run(slow_client, attack, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X")
        post = b"POST /api/v1/checks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        for _ in range(50):
            attack.run(slow_client, attack, post + b"Content-Length: 100000\r\n\r\n{", b" " * 10)
        for _ in range(100):
            attack.run(idle_client, attack)
        time.sleep(seconds * 0.1)
        attacked = measure(port, victim, seconds * 0.5, "200 slow/idle")
        attack.stop()
        return report("slowloris", quiet, attacked)


def wait_hold(folder: Path, workers: int, seconds: float) -> dict[str, Any]:
    with service(folder, workers, "--threads", "16") as running:
        port = running.port
        victim, holder = running.students(2)
        call(port, "POST", "/api/v1/checks?wait=30", {"challenge": "after_game", "source": CORRECT}, victim)
        quiet = measure(port, victim, seconds * 0.4, "quiet")
        code, stuck, _ = call(
            port, "POST", "/api/v1/checks", {"challenge": "after_game", "source": STUCK}, holder
        )
        attack = Attack()
        if code == 202:
            for _ in range(50):
                attack.run(wait_holder, attack, port, holder, stuck["id"])
        time.sleep(seconds * 0.1)
        attacked = measure(port, victim, seconds * 0.5, "50 waits")
        attack.stop()
        return report("wait-hold (--threads 16)", quiet, attacked)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="per scenario, at most 60")
    parser.add_argument("--workers", type=int, default=2, help="grader processes of the service")
    parser.add_argument("--only", default=",".join(SCENARIOS), help="scenarios, comma-separated")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    options = parser.parse_args()
    seconds = max(10.0, min(60.0, options.seconds)) - 8.0  # what the measures may take; start-up aside
    wanted = [name.strip() for name in options.only.split(",") if name.strip()]
    unknown = sorted(set(wanted) - set(SCENARIOS))
    if unknown:
        parser.error(f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(SCENARIOS)}")
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="menace-abuse-") as scratch:
        root = Path(scratch)
        for name in wanted:
            print(f"{name}:", flush=True)
            if name == "flood":
                results[name] = flood(root / name, options.workers, seconds, anonymous=False)
            elif name == "flood-open":
                results[name] = flood(root / name, options.workers, seconds, anonymous=True)
            elif name == "slowloris":
                results[name] = slowloris(root / name, options.workers, seconds)
            else:
                results[name] = wait_hold(root / name, options.workers, seconds)
    if options.json:
        options.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
