"""``menace check --server``: what a student most likely types, and one plain sentence for each mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from menace_course.service.client import ServiceError, service_address
from tests.service.support import CORRECT, LiveService, menace

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("typed", "address"),
    [
        ("https://menace.example.edu/c/after_game", "https://menace.example.edu"),
        ("https://menace.example.edu/lesson#step-3", "https://menace.example.edu"),
        ("https://example.edu/menace/c/name?tab=1", "https://example.edu/menace"),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000"),
        ("  https://menace.example.edu/api/v1/checks  ", "https://menace.example.edu"),
    ],
)
def test_a_pages_url_is_cut_to_the_services_address(typed: str, address: str) -> None:
    assert service_address(typed) == address


@pytest.mark.parametrize("typed", ["menace.example.edu", "ftp://example.edu", "https://"])
def test_an_address_that_is_not_a_web_address_is_one_sentence(typed: str) -> None:
    with pytest.raises(ServiceError, match="is not a web address"):
        service_address(typed)


def test_the_challenge_pages_url_and_the_lesson_pages_url_check_on_the_service(
    live: LiveService, db_url: str, tmp_path: Path
) -> None:
    token = menace("users", "add", "alice", "--db", db_url).stdout.split()[1]
    mine = tmp_path / "after_game.py"
    mine.write_text(CORRECT.read_text())
    for url in (f"{live.url}/c/after_game", f"{live.url}/lesson"):
        done = menace("check", str(mine), "--server", url, cwd=tmp_path, env={"MENACE_TOKEN": token})
        assert done.returncode == 0, done.stderr
        assert "passes all 15 checks" in done.stdout
        assert f"checked on the check service at {live.url}" in done.stderr


def test_no_token_a_stopped_service_and_a_web_page_that_is_no_service_are_each_one_plain_sentence(
    live: LiveService, tmp_path: Path
) -> None:
    mine = tmp_path / "after_game.py"
    mine.write_text(CORRECT.read_text())
    no_token = menace("check", str(mine), "--server", live.url, cwd=tmp_path, env={"MENACE_TOKEN": ""})
    assert no_token.returncode == 2
    assert "needs your token: set MENACE_TOKEN to the token your instructor gave you" in no_token.stderr
    assert "Bearer" not in no_token.stderr and "menace users add" not in no_token.stderr

    down = menace("check", str(mine), "--server", "http://127.0.0.1:9", cwd=tmp_path)
    assert down.returncode == 2
    assert (
        "cannot reach the check service at http://127.0.0.1:9: nothing answers at that address" in down.stderr
    )
    assert "Errno" not in down.stderr

    # The assets folder serves files, not the API: a web server that is not a check service.
    not_service = menace("check", str(mine), "--server", f"{live.url}/assets/x", cwd=tmp_path)
    assert not_service.returncode == 2
    assert "is not a menace check service" in not_service.stderr
    assert "<" not in not_service.stderr
    for done in (no_token, down, not_service):
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
