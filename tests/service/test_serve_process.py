"""``menace serve`` for real: a gunicorn process on 127.0.0.1, checked from the kit's side with
``menace check --server``, which shows the hidden tests by name and hint."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.service.support import BUGGY, CORRECT, METRICS_TOKEN, LiveService, menace, request

pytestmark = pytest.mark.slow


def _token(db_url: str, name: str = "alice") -> str:
    added = menace("users", "add", name, "--db", db_url)
    assert added.returncode == 0, added.stderr
    return str(added.stdout.split()[1])


def test_menace_check_server_shows_the_hidden_tests_with_the_local_exit_codes(
    live: LiveService, db_url: str, tmp_path: Path
) -> None:
    token = _token(db_url)
    student = tmp_path / "student"
    student.mkdir()
    buggy = student / "after_game.py"
    buggy.write_text(BUGGY.read_text())
    remote = menace("check", str(buggy), "--server", live.url, cwd=student, env={"MENACE_TOKEN": token})
    local = menace("check", str(buggy))
    assert remote.returncode == local.returncode == 1, remote.stderr
    assert remote.stdout == local.stdout
    assert "✗ A loss on a square that has no beads left keeps it at 0" in remote.stdout
    assert "hint: A count never goes below 0" in remote.stdout

    through_env = menace(
        "check",
        str(buggy),
        "--format",
        "json",
        cwd=student,
        env={"MENACE_TOKEN": token, "MENACE_SERVER": live.url},
    )
    assert through_env.returncode == 1
    assert json.loads(through_env.stdout)["score"] == 6.0

    correct = student / "mine.py"
    correct.write_text(CORRECT.read_text())
    passed = menace("check", str(correct), "--server", live.url, cwd=student, env={"MENACE_TOKEN": token})
    assert passed.returncode == 0
    assert re.search(r"✓ after_game passes all 15 checks", passed.stdout)


def test_menace_check_server_explains_a_missing_token_and_an_unreachable_service(
    live: LiveService, tmp_path: Path
) -> None:
    mine = tmp_path / "after_game.py"
    mine.write_text(CORRECT.read_text())
    no_token = menace("check", str(mine), "--server", live.url, cwd=tmp_path, env={"MENACE_TOKEN": ""})
    assert no_token.returncode == 2
    assert "needs your token" in no_token.stderr and "MENACE_TOKEN" in no_token.stderr
    gone = menace("check", str(mine), "--server", "http://127.0.0.1:9", cwd=tmp_path)
    assert gone.returncode == 2
    assert "cannot reach the check service at http://127.0.0.1:9" in gone.stderr
    assert "Traceback" not in no_token.stderr + gone.stderr


def test_the_service_answers_health_pages_and_the_api_over_real_http(live: LiveService, db_url: str) -> None:
    status, health, _ = request(live.url + "/healthz", token=METRICS_TOKEN)
    assert status == 200 and health["ok"] and health["database"] and health["dispatcher"]["workers"] == 1
    status, page, headers = request(live.url + "/c/after_game")
    assert status == 200
    assert '<textarea id="source" name="source" data-editor="python"' in page
    assert "Check my program" in page
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    token = _token(db_url, "bob")
    status, check, _ = request(
        live.url + "/api/v1/checks?wait=30",
        "POST",
        {"challenge": "after_game", "source": CORRECT.read_text()},
        token,
    )
    assert status == 200 and check["report"]["passed"]
