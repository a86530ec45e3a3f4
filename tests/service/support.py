"""Helpers of the service tests: apps, users, PostgreSQL databases and a real ``menace serve``."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.support import REPO

EXAMPLES = REPO / "examples"
BUGGY = EXAMPLES / "after_game_buggy.py"
CORRECT = EXAMPLES / "after_game_student.py"


def sandbox_kind() -> str:
    """bwrap where it runs (always under CI), else a plain process."""
    from menace_course.sandbox.launch import choose_kind

    return choose_kind("auto")


def make_app(db_url: str, **settings: Any) -> Any:
    """``create_app`` over the repository's course, with one grader process."""
    from menace_course.service.app import create_app
    from menace_course.service.config import ServiceConfig

    config = ServiceConfig(course=REPO, db_url=db_url, workers=1, sandbox=sandbox_kind())  # type: ignore[arg-type]
    return create_app(replace(config, **settings))


def stop_app(app: Any) -> None:
    from menace_course.service.app import shutdown

    shutdown(app)


def add_user(app: Any, name: str | None = None, instructor: bool = False) -> tuple[int, str]:
    """A new local user of the app's database: their id and token."""
    from menace_course.service.db.people import add_local_user
    from menace_course.service.db.tables import Role

    service = app.extensions["menace"]
    with service.db.writing() as session:
        user, token = add_local_user(
            session,
            name or f"student-{uuid.uuid4().hex[:8]}",
            Role.INSTRUCTOR if instructor else Role.LEARNER,
        )
        return user.id, token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def without_timing(report: dict[str, Any]) -> dict[str, Any]:
    """A report without what differs between two runs of the same check (wall-clock times)."""
    data = json.loads(json.dumps(report))
    data.pop("seconds", None)
    for test in data.get("tests", []):
        test.pop("seconds", None)
    return data


def require_postgres() -> None:
    """Skip the test when ``MENACE_TEST_POSTGRES_URL`` is unset; under CI, fail it instead."""
    import pytest

    if os.environ.get("MENACE_TEST_POSTGRES_URL"):
        return
    if os.environ.get("CI"):
        pytest.fail("CI must run the PostgreSQL tests: set MENACE_TEST_POSTGRES_URL")
    pytest.skip("MENACE_TEST_POSTGRES_URL is not set")


@contextlib.contextmanager
def postgres_database() -> Iterator[str]:
    """A PostgreSQL database of its own, dropped afterwards (``MENACE_TEST_POSTGRES_URL`` is the server).

    Without a server the test is skipped, and under CI, which must run every PostgreSQL
    test, it fails instead (:func:`require_postgres`).
    """
    require_postgres()
    import psycopg
    from sqlalchemy.engine import make_url

    admin = os.environ["MENACE_TEST_POSTGRES_URL"]
    name = f"menace_test_{uuid.uuid4().hex[:12]}"
    admin_url = make_url(admin)
    conninfo = admin_url.set(drivername="postgresql").render_as_string(hide_password=False)
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


def menace(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 120
) -> Any:
    """Run the real ``menace`` command."""
    return subprocess.run(
        [sys.executable, "-m", "menace_course", *args],
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, **(env or {})},
    )


#: The metrics token a LiveService runs with: ``/healthz`` gives its details to its holder.
METRICS_TOKEN = "mc_test_metrics_token"


class LiveService:
    """A real ``menace serve`` process on 127.0.0.1 and a free port; its output kept in files."""

    def __init__(self, folder: Path, db_url: str, *options: str, course: Path = REPO) -> None:
        self.folder = folder
        self.db_url = db_url
        self.options = options
        self.course = course
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.runs = 0

    def start(self, port: int = 0, timeout: float = 90) -> LiveService:
        self.runs += 1
        out = (self.folder / f"serve-{self.runs}.out").open("wb")
        err = (self.folder / f"serve-{self.runs}.err").open("wb")
        argv = [sys.executable, "-m", "menace_course", "serve", "--port", str(port), "--db", self.db_url]
        argv += ["--course", str(self.course), "--workers", "1", *self.options]
        if sandbox_kind() == "process":
            argv += ["--sandbox", "process", "--i-accept-no-sandbox"]
        env = {**os.environ, "MENACE_METRICS_TOKEN": METRICS_TOKEN}
        self.process = subprocess.Popen(
            argv, stdout=out, stderr=err, cwd=self.folder, start_new_session=True, env=env
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = (self.folder / f"serve-{self.runs}.out").read_text(errors="replace")
            found = re.search(r"menace serve: (http://\S+)", text)
            if found:
                self.url = found.group(1)
                self.wait_healthy(deadline - time.monotonic())
                return self
            if self.process.poll() is not None:
                raise RuntimeError(f"menace serve ended: {self.logs()}")
            time.sleep(0.1)
        raise RuntimeError(f"menace serve did not start: {self.logs()}")

    def wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, urllib.error.URLError):
                with urllib.request.urlopen(self.url + "/healthz", timeout=5) as response:
                    if response.status == 200:
                        return
            time.sleep(0.2)
        raise RuntimeError(f"menace serve is not healthy: {self.logs()}")

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.folder.glob("serve-*.*")))

    def kill9(self) -> None:
        """``kill -9`` the service (the gunicorn arbiter), and wait until its processes are gone."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _group_alive(self.process.pid):
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def request(
    url: str, method: str = "GET", body: Any = None, token: str | None = None
) -> tuple[int, Any, Any]:
    """One HTTP request: status, parsed JSON (or text), headers."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            raw, status, got = response.read(), response.status, response.headers
    except urllib.error.HTTPError as error:
        raw, status, got = error.read(), error.code, error.headers
    try:
        return status, json.loads(raw), got
    except ValueError:
        return status, raw.decode("utf-8", "replace"), got


def metric_value(text: str, name: str, **labels: str) -> float:
    """One sample's value in Prometheus's text format (0 when absent)."""
    for line in text.splitlines():
        found = re.fullmatch(rf"{name}(?:\{{(.*)\}})? (\S+)", line)
        if found and all(f'{k}="{v}"' in (found.group(1) or "") for k, v in labels.items()):
            return float(found.group(2))
    return 0.0
