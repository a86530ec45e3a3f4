"""The service's settings: one object, and from it the options, the environment, a config file
and the table in docs/deploy.md; bad settings are one line and exit 2."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from menace_course.service.config import ServiceConfig, default_of, settings, settings_table
from tests.service.support import menace, sandbox_kind
from tests.support import REPO

DEPLOY_DOC = REPO / "docs" / "deploy.md"
TABLE = re.compile(r"<!-- settings: begin.*?-->\n(.*?)<!-- settings: end -->", re.S)


def test_the_settings_table_in_deploy_md_is_the_config_objects_own() -> None:
    found = TABLE.search(DEPLOY_DOC.read_text(encoding="utf-8"))
    assert found, "docs/deploy.md has no <!-- settings: begin --> ... <!-- settings: end --> table"
    assert found.group(1) == settings_table(), (
        "docs/deploy.md's settings table is out of date: paste menace_course.service.config.settings_table()"
    )
    for item in fields(ServiceConfig):
        assert f"`MENACE_{item.metadata['setting'].name.upper()}`" in found.group(1)


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_every_setting_of_a_command_is_an_option_with_its_default_and_variable(command: str) -> None:
    shown = " ".join(menace(command, "--help").stdout.split())
    for _, about, _ in settings(command):
        assert f"{about.flag} " in shown, about.flag
        assert f"env {about.env}]" in shown, about.env
    assert "--config FILE" in shown
    assert "[default: 60.0; env MENACE_CHECK_SECONDS]" in shown  # the dataclass's default, not a copy


def test_the_worker_and_the_local_pool_take_their_defaults_from_the_config() -> None:
    from menace_course.service.dispatch.local import LocalPool
    from menace_course.service.dispatch.procrastinate_worker import WorkerConfig

    pool = LocalPool(str(REPO), workers=1, sandbox="process")
    assert pool.check_seconds == default_of("check_seconds") and pool.max_queue == default_of("max_queue")
    config = ServiceConfig(course=REPO, db_url="postgresql:///x", concurrency=3, worker_name="w1")
    worker = WorkerConfig.of(config)
    assert (worker.concurrency, worker.name, worker.check_seconds) == (3, "w1", config.check_seconds)


def _resolved(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *argv: str, **env: str) -> ServiceConfig:
    """The configuration ``menace serve ARGV`` would serve with (the server is not started)."""
    from menace_course import cli
    from menace_course.service import server

    for name in [n for n in __import__("os").environ if n.startswith("MENACE_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    seen: list[ServiceConfig] = []
    monkeypatch.setattr(server, "serve", lambda config, announce: seen.append(config))
    db = f"sqlite:///{tmp_path / 'service.sqlite3'}"
    sandbox = ["--sandbox", "process", "--i-accept-no-sandbox"] if sandbox_kind() == "process" else []
    with pytest.raises(SystemExit) as ended:
        cli.main(["serve", "--course", str(REPO), "--db", db, "--port", "0", *sandbox, *argv])
    assert ended.value.code == 0
    return seen[0]


def test_a_flag_beats_the_environment_which_beats_the_config_file_which_beats_the_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    file = tmp_path / "menace.toml"
    file.write_text(
        'threads = 10\nmax_queue = 7\nrate_limit = "5 per minute"\ntrusted_proxies = ["10.0.0.5"]\n'
        "behind_proxy = true\nconcurrency = 4  # a worker's setting: menace serve leaves it\n"
    )
    config = _resolved(
        monkeypatch, tmp_path, "--config", str(file), "--rate-limit", "6 per minute", MENACE_MAX_QUEUE="8"
    )
    assert config.threads == 10  # the file
    assert config.max_queue == 8  # the environment over the file
    assert config.rate_limit == "6 per minute"  # the flag over the file
    assert config.trusted_proxies == ("10.0.0.5/32",) and config.behind_proxy
    assert config.per_user_queued == default_of("per_user_queued")  # nobody said: the default


def test_menace_config_names_the_file_and_metrics_token_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    file = tmp_path / "menace.toml"
    file.write_text('open = true\nlog_format = "json"\n')
    config = _resolved(monkeypatch, tmp_path, MENACE_CONFIG=str(file), MENACE_METRICS_TOKEN="mc_secret")
    assert config.open and config.log_format == "json" and config.metrics_token == "mc_secret"


BAD_FILES = {
    "an unknown key": ("prot = 8000\n", "unknown setting 'prot' (did you mean 'port'?)"),
    "a wrong type": ('port = "8000"\n', "port must be a whole number, not str"),
    "a value out of bounds": ("threads = 1\n", "threads = 1: 1 is not in the range x>=4"),
    "a choice not offered": ('queue = "redis"\n', "queue = 'redis': 'redis' is not one of"),
    "not TOML": ("port = \n", "is not TOML"),
    "not UTF-8": (b"port = 1\xff\n", "is not UTF-8 text"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_config_file_is_one_line_and_exit_2(case: str, tmp_path: Path) -> None:
    text, message = BAD_FILES[case]
    file = tmp_path / "menace.toml"
    file.write_bytes(text if isinstance(text, bytes) else text.encode())
    done = menace("serve", "--course", str(REPO), "--config", str(file))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert message in done.stderr and str(file) in done.stderr


@pytest.mark.parametrize(
    "command, env, message",
    [
        ("serve", {"MENACE_PORT": "eighty"}, "MENACE_PORT='eighty': "),
        ("serve", {"MENACE_OPEN": "perhaps"}, "MENACE_OPEN='perhaps': "),
        ("serve", {"MENACE_RATE_LIMIT": "lots"}, "MENACE_RATE_LIMIT 'lots' is not a limit"),
        ("serve", {"MENACE_CONFIG": "/nonexistent/menace.toml"}, "cannot read the config file"),
        ("worker", {"MENACE_CONCURRENCY": "0"}, "MENACE_CONCURRENCY='0': 0 is not in the range x>=1"),
    ],
)
def test_a_bad_environment_variable_is_one_line_naming_it_and_exit_2(
    command: str, env: dict[str, Any], message: str
) -> None:
    done = menace(command, "--course", str(REPO), env=env)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert message in done.stderr


@pytest.mark.parametrize(
    "env",
    [{"MENACE_PORT": "eighty"}, {"MENACE_CONFIG": "/nonexistent/menace.toml"}],
    ids=["port", "config"],
)
def test_a_bad_setting_of_the_service_does_not_stop_its_export(env: dict[str, str], tmp_path: Path) -> None:
    # The export has no port and reads no service config: the setting is serve's own, and
    # `menace serve` alone still refuses it (the test above).
    out = tmp_path / "grades"
    database = f"sqlite:///{tmp_path / 'service.sqlite3'}"
    args = ("--challenge", "after_game", "--out", str(out), "--db", database, "--course", str(REPO))
    done = menace("serve", "export", *args, env=env)
    assert done.returncode == 0, done.stderr
    assert (out / "grades.csv").is_file()
