"""``--behind-proxy`` believes X-Forwarded-* only from the configured proxy addresses (issue 22).

A student who reaches the service directly (not through the proxy) must not choose their own
address with ``X-Forwarded-For``: that would give them a fresh rate-limit key per request.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from menace_course.service.rate_limits import LOGIN_LIMIT
from tests.service.support import make_app, menace, stop_app

PROXY, STUDENT = "10.0.0.1", "203.0.113.9"


@pytest.fixture(scope="module")
def proxied_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    app = make_app(
        f"sqlite:///{tmp_path_factory.mktemp('db') / 'service.sqlite3'}",
        behind_proxy=True,
        trusted_proxies=(PROXY,),
    )
    try:
        yield app
    finally:
        stop_app(app)


def _failed_logins(app: Any, peer: str, count: int) -> list[int]:
    client = app.test_client()
    page = client.get("/login", environ_base={"REMOTE_ADDR": peer}).get_data(as_text=True)
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found
    codes = []
    for number in range(count):
        answer = client.post(
            "/login",
            data={"csrf_token": found.group(1), "token": "mc_wrong"},
            headers={"X-Forwarded-For": f"198.51.100.{number}"},
            environ_base={"REMOTE_ADDR": peer},
        )
        codes.append(answer.status_code)
    return codes


def test_a_peer_that_is_not_the_proxy_cannot_pick_its_address_with_x_forwarded_for(proxied_app: Any) -> None:
    allowed = int(LOGIN_LIMIT.split()[0])
    codes = _failed_logins(proxied_app, STUDENT, allowed + 1)
    assert codes[:allowed] == [401] * allowed and codes[-1] == 429  # one address, one limit


def test_the_proxy_forwards_each_clients_own_address_and_scheme(proxied_app: Any) -> None:
    allowed = int(LOGIN_LIMIT.split()[0])
    assert set(_failed_logins(proxied_app, PROXY, allowed + 1)) == {401}  # every client its own limit
    client = proxied_app.test_client()
    page = client.get("/login", headers={"X-Forwarded-Proto": "https"}, environ_base={"REMOTE_ADDR": PROXY})
    assert "Secure" in page.headers.get("Set-Cookie", "")
    direct = proxied_app.test_client().get(
        "/login", headers={"X-Forwarded-Proto": "https"}, environ_base={"REMOTE_ADDR": STUDENT}
    )
    assert "Secure" not in direct.headers.get("Set-Cookie", "")


def test_serve_refuses_a_trusted_proxy_that_is_not_an_address(tmp_path: Path) -> None:
    done = menace("serve", "--behind-proxy", "--trusted-proxy", "proxy.example.edu", cwd=tmp_path)
    assert done.returncode == 2 and "is not an IP address or network" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    alone = menace("serve", "--trusted-proxy", "10.0.0.1", cwd=tmp_path)
    assert alone.returncode == 2 and "needs --behind-proxy" in alone.stderr, alone.stderr
