"""``menace lti``: tool-config, add/list/remove platforms, keys and their rotation, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lti.conftest import copy_course

pytestmark = pytest.mark.slow


def menace(*args: str, course: Path | None = None) -> subprocess.CompletedProcess[str]:
    extra = ["--course", str(course)] if course is not None and args[:2] != ("lti", "tool-config") else []
    return subprocess.run(
        [sys.executable, "-m", "menace_course", *args, *extra],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_course(tmp_path_factory.mktemp("lti-course"))


PLATFORM = [
    "--issuer", "https://canvas.instructure.com",
    "--client-id", "10000000000042",
    "--deployment-id", "7:abc",
    "--auth-login-url", "https://sso.canvaslms.com/api/lti/authorize_redirect",
    "--auth-token-url", "https://sso.canvaslms.com/login/oauth2/token",
    "--key-set-url", "https://sso.canvaslms.com/api/lti/security/jwks",
]  # fmt: skip


def test_tool_config_names_every_url_an_lms_form_asks_for() -> None:
    done = menace("lti", "tool-config", "--url", "https://menace.example.edu/")
    assert done.returncode == 0, done.stderr
    for expected in (
        "Redirect URIs ................ https://menace.example.edu/lti/launch",
        "OpenID Connect Initiation Url  https://menace.example.edu/lti/login",
        "Public JWK URL ............... https://menace.example.edu/lti/jwks",
        "Initiate login URL ........... https://menace.example.edu/lti/login",
        "Public keyset ................ https://menace.example.edu/lti/jwks",
        "https://purl.imsglobal.org/spec/lti-ags/scope/score",
        "LtiDeepLinkingRequest",
    ):
        assert expected in done.stdout


def test_tool_config_as_canvas_json_is_a_developer_key_configuration() -> None:
    done = menace("lti", "tool-config", "--url", "https://menace.example.edu", "--format", "canvas-json")
    config = json.loads(done.stdout)
    assert config["oidc_initiation_url"] == "https://menace.example.edu/lti/login"
    assert config["target_link_uri"] == "https://menace.example.edu/lti/launch"
    assert config["public_jwk_url"] == "https://menace.example.edu/lti/jwks"
    placements = config["extensions"][0]["settings"]["placements"]
    assert {p["placement"] for p in placements} == {"assignment_selection", "link_selection"}
    assert all(p["message_type"] == "LtiDeepLinkingRequest" for p in placements)


def test_tool_config_refuses_a_plain_http_public_address() -> None:
    done = menace("lti", "tool-config", "--url", "http://menace.example.edu")
    assert done.returncode == 2 and "must use https" in done.stderr and "Traceback" not in done.stderr


def test_add_platform_registers_updates_and_adds_deployments(course: Path) -> None:
    first = menace("lti", "add-platform", *PLATFORM, course=course)
    assert first.returncode == 0, first.stderr
    assert (
        "registered https://canvas.instructure.com (client id 10000000000042); deployments: 7:abc"
        in first.stdout
    )
    again = menace("lti", "add-platform", *PLATFORM, "--deployment-id", "8:def", course=course)
    assert again.returncode == 0 and "updated" in again.stdout and "7:abc, 8:def" in again.stdout
    second = menace("lti", "add-platform", *PLATFORM[:2], "--client-id", "99", *PLATFORM[4:], course=course)
    assert second.returncode == 0
    listed = menace("lti", "list-platforms", course=course)
    assert listed.stdout.count("https://canvas.instructure.com  client id") == 2
    assert "deployments: 7:abc, 8:def" in listed.stdout
    removed = menace(
        "lti",
        "remove-platform",
        "--issuer",
        "https://canvas.instructure.com",
        "--client-id",
        "99",
        course=course,
    )
    assert removed.returncode == 0 and "removed the platform" in removed.stdout
    one = menace(
        "lti", "remove-platform",
        "--issuer", "https://canvas.instructure.com", "--client-id", "10000000000042",
        "--deployment-id", "8:def", course=course,
    )  # fmt: skip
    assert one.returncode == 0 and "removed the deployment 8:def" in one.stdout
    assert "deployments: 7:abc\n" in menace("lti", "list-platforms", course=course).stdout


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("--key-set-url", "ftp://x/jwks"), "--key-set-url 'ftp://x/jwks': must be an http(s) URL"),
        (("--auth-token-url", "http://lms.example.org/token"), "must use https"),
        (("--issuer", " "), "--issuer must not be empty"),
    ],
)
def test_add_platform_refuses_bad_values_in_one_line(
    course: Path, change: tuple[str, str], message: str
) -> None:
    args = list(PLATFORM)
    args[args.index(change[0]) + 1] = change[1]
    done = menace("lti", "add-platform", *args, course=course)
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_keys_and_rotation_from_the_command_line(course: Path) -> None:
    shown = menace("lti", "keys", course=course)
    assert shown.returncode == 0 and shown.stdout.startswith("current ")
    kid = shown.stdout.split()[1]
    rotated = menace("lti", "rotate-keys", course=course)
    assert rotated.returncode == 0 and f"still published: {kid}" in rotated.stdout
    both = menace("lti", "keys", course=course)
    assert f"previous  {kid}" in both.stdout
    finished = menace("lti", "rotate-keys", "--finish", course=course)
    assert f"retired {kid}" in finished.stdout
    assert "previous" not in menace("lti", "keys", course=course).stdout
