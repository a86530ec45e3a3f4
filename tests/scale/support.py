"""Real processes for the scale-out tests: ``menace serve --queue procrastinate`` and ``menace worker``."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.service.support import CORRECT, METRICS_TOKEN, request, sandbox_kind
from tests.support import REPO

#: A right answer that takes about three seconds to load (the loading limit is 5 s): long
#: enough to be killed mid-check, with room for both of a worker's checks to be seen running
#: before the first one ends.
SLOW = "import time\ntime.sleep(3.0)\n\n" + CORRECT.read_text()


def _sandbox_args() -> list[str]:
    return ["--sandbox", "process", "--i-accept-no-sandbox"] if sandbox_kind() == "process" else []


class Proc:
    """One real ``menace`` process, its output in files under ``folder``."""

    def __init__(self, folder: Path, label: str, argv: list[str]) -> None:
        self.folder, self.label, self.argv = folder, label, argv
        self.out = folder / f"{label}.out"
        self.err = folder / f"{label}.err"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, ready: str, timeout: float = 120) -> re.Match[str]:
        """Start it and wait for ``ready`` (a regex) in its output."""
        with self.out.open("ab") as out, self.err.open("ab") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "menace_course", *self.argv],
                stdout=out,
                stderr=err,
                cwd=self.folder,
                start_new_session=True,
                env={**os.environ, "MENACE_METRICS_TOKEN": METRICS_TOKEN},
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(ready, self.out.read_text(errors="replace"))
            if found:
                return found
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.label} ended ({self.process.returncode}): {self.logs()}")
            time.sleep(0.1)
        raise RuntimeError(f"{self.label} did not get ready: {self.logs()}")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def logs(self) -> str:
        return self.out.read_text(errors="replace") + self.err.read_text(errors="replace")

    def kill9(self) -> None:
        """``kill -9`` the process itself (not its group): its children must notice by themselves."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL to the whole group if it lingers."""
        if self.process is None:
            return
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


def serve(folder: Path, db_url: str, *options: str) -> tuple[Proc, str]:
    """A web process that only accepts, stores and answers; its URL."""
    proc = Proc(
        folder,
        "serve",
        [
            "serve",
            "--port",
            "0",
            "--db",
            db_url,
            "--course",
            str(REPO),
            "--queue",
            "procrastinate",
            *_sandbox_args(),
            *list(options),
        ],
    )
    found = proc.start(r"menace serve: (http://\S+)")
    return proc, found.group(1)


def worker(folder: Path, db_url: str, label: str, concurrency: int = 1, *options: str) -> Proc:
    """A ``menace worker`` with ``concurrency`` graders, started and warm."""
    proc = Proc(
        folder,
        label,
        [
            "worker",
            "--db",
            db_url,
            "--course",
            str(REPO),
            "--concurrency",
            str(concurrency),
            "--name",
            label,
            *_sandbox_args(),
            *list(options),
        ],
    )
    proc.start(r"menace worker \S+: \d+ grader")
    return proc


def post(url: str, token: str, source: str, wait: float = 0) -> tuple[int, Any, Any]:
    """POST one check of after_game."""
    query = f"?wait={wait:g}" if wait else ""
    return request(
        f"{url}/api/v1/checks{query}", "POST", {"challenge": "after_game", "source": source}, token
    )


def until(condition: Callable[[], Any], timeout: float, every: float = 0.2, what: str = "") -> Any:
    """Poll ``condition`` until it is truthy; its value. Fails the test after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"not within {timeout:g} s: {what}")


def descendants(pid: int) -> dict[int, str]:
    """Every process below ``pid``: its command line, by process id."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: dict[int, str] = {}
    stack = list(children.get(pid, []))
    while stack:
        child = stack.pop()
        with contextlib.suppress(OSError):
            found[child] = (Path("/proc") / str(child) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        stack.extend(children.get(child, []))
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
