"""Forged, replayed and unregistered launches are refused: a clear page, a log line, no traceback.

Each forgery is made by the test LMS itself (a real login, a real signed id_token) with one
thing wrong: another key, another audience, an expired token, an unknown deployment; the
replay re-posts a launch that already worked, cookies and all.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.lti.conftest import Browser, Service, add_activity
from tests.lti.lms import RunningPlatform

pytestmark = pytest.mark.slow

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


@pytest.fixture(scope="module")
def link(lms: RunningPlatform) -> str:
    return add_activity(lms, "after_game")


@pytest.fixture
def tampered(lms: RunningPlatform) -> Iterator[RunningPlatform]:
    """The LMS, put back to honest after the test."""
    yield lms
    lms.state.mutate_claims = None
    lms.state.signing_key_override = None
    lms.state.id_token_lifetime = 300


def other_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def changed(**claims: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def mutate(message: dict[str, Any]) -> dict[str, Any]:
        return {**message, **claims}

    return mutate


def assert_refused(answer: requests.Response, reason: str, caplog: pytest.LogCaptureFixture) -> None:
    assert answer.status_code == 403, answer.text[:400]
    assert "This launch was refused" in answer.text and reason in answer.text
    assert "Traceback" not in answer.text and 'File "' not in answer.text
    assert "/c/after_game" not in answer.url
    lines = [r.getMessage() for r in caplog.records if r.name == "menace.lti" and "refused" in r.getMessage()]
    assert lines and reason.split()[0] in lines[-1]
    assert "Traceback" not in caplog.text


def test_a_token_signed_with_another_key_is_refused(
    service: Service, tampered: RunningPlatform, link: str, caplog: pytest.LogCaptureFixture
) -> None:
    tampered.state.signing_key_override = other_key()
    answer = Browser().launch(tampered, "alice", link)
    assert_refused(answer, "signature does not match", caplog)


def test_a_token_for_another_tool_is_refused(
    service: Service, tampered: RunningPlatform, link: str, caplog: pytest.LogCaptureFixture
) -> None:
    tampered.state.mutate_claims = changed(aud="some-other-tool", azp="some-other-tool")
    answer = Browser().launch(tampered, "alice", link)
    assert_refused(answer, "not registered", caplog)


def test_a_token_naming_this_tool_but_authorized_for_another_is_refused(
    service: Service, tampered: RunningPlatform, link: str, caplog: pytest.LogCaptureFixture
) -> None:
    tampered.state.mutate_claims = changed(aud=[tampered.state.client_id, "other"], azp="other")
    answer = Browser().launch(tampered, "alice", link)
    assert_refused(answer, "authorized party", caplog)


def test_an_expired_token_is_refused(
    service: Service, tampered: RunningPlatform, link: str, caplog: pytest.LogCaptureFixture
) -> None:
    tampered.state.id_token_lifetime = -120
    answer = Browser().launch(tampered, "alice", link)
    assert_refused(answer, "expired", caplog)


def test_an_unknown_deployment_is_refused(
    service: Service, tampered: RunningPlatform, link: str, caplog: pytest.LogCaptureFixture
) -> None:
    tampered.state.mutate_claims = changed(
        **{"https://purl.imsglobal.org/spec/lti/claim/deployment_id": "deployment-9"}
    )
    answer = Browser().launch(tampered, "alice", link)
    assert_refused(answer, "deployment", caplog)


def test_a_replayed_launch_is_refused(
    service: Service, lms: RunningPlatform, link: str, caplog: pytest.LogCaptureFixture
) -> None:
    browser = Browser()
    form = browser.get(f"{lms.url}/launch", params={"user": "alice", "link": link})
    first = browser.follow_form(form)
    assert first.url.endswith("/c/after_game")
    again = browser.follow_form(form)  # the same id_token and state, the same cookies
    assert_refused(again, "already used", caplog)


def test_a_learner_cannot_add_an_activity(
    service: Service, tampered: RunningPlatform, caplog: pytest.LogCaptureFixture
) -> None:
    tampered.state.mutate_claims = changed(**{"https://purl.imsglobal.org/spec/lti/claim/roles": [LEARNER]})
    answer = Browser().launch(tampered, "ines")  # a deep linking request, as a learner
    assert_refused(answer, "Only an instructor", caplog)


def test_a_launch_from_an_unregistered_platform_is_refused_at_login(
    service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    answer = requests.get(
        f"{service.url}/lti/login",
        params={
            "iss": "https://lms.example.org",
            "login_hint": "x",
            "target_link_uri": f"{service.url}/lti/launch",
        },
        timeout=10,
    )
    assert answer.status_code == 403
    assert "not registered" in answer.text and "menace lti add-platform" in answer.text
    assert any("refused" in r.getMessage() for r in caplog.records if r.name == "menace.lti")


def test_a_login_that_names_no_lms_says_so(service: Service) -> None:
    answer = requests.get(f"{service.url}/lti/login", timeout=10)
    assert answer.status_code == 400 and "not an LMS's login request" in html.unescape(answer.text)


def test_an_lms_whose_keys_cannot_be_read_is_refused_with_the_reason(
    service: Service, lms: RunningPlatform, link: str, caplog: pytest.LogCaptureFixture
) -> None:
    from sqlalchemy import update

    from menace_course.service.lti.tables import LtiPlatform

    def key_set_url(url: str) -> None:
        with service.db.writing() as db:
            registered = LtiPlatform.issuer == lms.state.issuer
            db.execute(update(LtiPlatform).where(registered).values(key_set_url=url))

    key_set_url(f"{lms.url}/no-such-jwks")
    try:
        answer = Browser().launch(lms, "alice", link)
    finally:
        key_set_url(lms.state.key_set_url)
    assert answer.status_code == 502 and "could not read the LMS's public keys" in html.unescape(answer.text)
    assert "Traceback" not in answer.text


def test_a_launch_with_no_state_or_garbage_is_refused_cleanly(
    service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    for form in ({}, {"state": "x"}, {"state": "x", "id_token": "not.a.jwt"}, {"id_token": "a.b"}):
        answer = requests.post(f"{service.url}/lti/launch", data=form, timeout=10)
        assert answer.status_code in (400, 403), answer.text[:300]
        assert "This launch was refused" in answer.text and "Traceback" not in answer.text


def test_a_pick_without_its_launch_is_refused(service: Service) -> None:
    answer = requests.post(
        f"{service.url}/lti/deep-link",
        data={"launch": "lti1p3-launch-nope", "challenge": "after_game"},
        timeout=10,
    )
    assert answer.status_code == 403 and "Add the activity again" in answer.text
