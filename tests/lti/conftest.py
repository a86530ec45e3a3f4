"""The LTI world for the tests: the real check service and the test LMS, both on 127.0.0.1.

- ``service``: ``create_app`` on a copy of the course (the service writes its state folder
  into the course, so the repository's own stays untouched), SQLite in ``tmp``, one warm
  grader, served by a real threaded HTTP server on a free port;
- ``lms``: the test platform (``tests.lti.lms``, built on lti1p3platform) pointed at
  the service, registered in it with ``menace lti add-platform``'s own code (both
  deployments);
- :class:`Browser`: a ``requests`` session that follows the LMS's and the tool's
  auto-posting forms the way a browser does.

Both live for the whole package (tests/lti) (a grader takes seconds to warm up); tests that change the
LMS's behaviour put it back in a ``finally``.
"""

from __future__ import annotations

import html
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

from tests.lti.lms import RunningPlatform, ScorePost, start_platform
from tests.support import copy_course


@dataclass
class Service:
    """The check service under test."""

    app: Flask
    server: BaseWSGIServer
    url: str
    course: Path

    @property
    def db(self) -> Any:
        return self.app.extensions["menace"].db

    @property
    def lti(self) -> Any:
        from menace_course.service.lti.runtime import lti_state

        with self.app.app_context():
            return lti_state()


def start_service(course: Path, db_url: str = "") -> Service:
    """``create_app`` on ``course``, served on a free port of 127.0.0.1."""
    from menace_course.service.app import create_app
    from menace_course.service.config import ServiceConfig

    server = make_server("127.0.0.1", 0, Flask("placeholder"), threaded=True)
    url = f"http://127.0.0.1:{server.socket.getsockname()[1]}"
    from tests.service.support import sandbox_kind

    config = ServiceConfig(course=course, db_url=db_url, sandbox=sandbox_kind(), workers=1)  # type: ignore[arg-type]
    app = create_app(config)
    server.app = app  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, name="menace-service", daemon=True).start()
    return Service(app, server, url, course)


def stop_service(service: Service) -> None:
    from menace_course.service.app import shutdown

    service.server.shutdown()
    service.server.server_close()
    shutdown(service.app)


def register(
    service: Service, lms: RunningPlatform, deployments: tuple[str, ...] = ("deployment-1", "deployment-2")
) -> None:
    """Register the LMS in the tool, as ``menace lti add-platform`` does."""
    from menace_course.service.lti.registry import PlatformSpec, add_platform

    state = lms.state
    with service.db.writing() as session:
        add_platform(
            session,
            PlatformSpec(
                state.issuer,
                state.client_id,
                deployments,
                state.auth_login_url,
                state.auth_token_url,
                state.key_set_url,
            ),
        )


@pytest.fixture(scope="package")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    course = copy_course(tmp_path_factory.mktemp("course"))
    # One challenge counts the latest attempt, to try both policies.
    toml = course / "challenges" / "count_boxes" / "challenge.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace("stars = ", 'score_policy = "latest"\nstars = ', 1)
    )
    running = start_service(course)
    yield running
    stop_service(running)


@pytest.fixture(scope="package")
def lms(service: Service) -> Iterator[RunningPlatform]:
    platform = start_platform(service.url)
    register(service, platform)
    yield platform
    platform.stop()


class Browser(requests.Session):
    """A requests session that submits auto-posting forms (the LMS's and the tool's) like a browser."""

    def __init__(self) -> None:
        super().__init__()
        self.headers["User-Agent"] = "menace-lti-tests"

    def follow_form(self, response: requests.Response) -> requests.Response:
        """Submit the first form of ``response`` with its hidden fields, as its script would."""
        assert response.status_code == 200, (response.status_code, response.text[:500])
        action = re.search(r"<form[^>]*action=['\"]([^'\"]+)['\"]", response.text)
        assert action, response.text[:500]
        fields = {
            name: html.unescape(value)
            for name, value in re.findall(
                r"<input type=['\"]hidden['\"] name=['\"](\w+)['\"] value=['\"]([^'\"]*)['\"]", response.text
            )
        }
        return self.post(html.unescape(action.group(1)), data=fields)

    def launch(self, lms: RunningPlatform, user: str, link: str | None = None) -> requests.Response:
        """Open ``link`` in the LMS as ``user`` (without a link: add an activity), up to the tool's answer."""
        params = {"user": user} if link is None else {"user": user, "link": link}
        return self.follow_form(self.get(f"{lms.url}/launch", params=params))

    def csrf(self, page: requests.Response) -> str:
        found = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
        assert found, page.text[:500]
        return found.group(1)


def add_activity(lms: RunningPlatform, slug: str, teacher: str = "ines") -> str:
    """An instructor adds ``slug`` to their course by deep linking; returns the new link's id."""
    browser = Browser()
    before = set(lms.state.links)
    picker = browser.launch(lms, teacher)
    launch_id = re.search(r'name="launch" value="([^"]+)"', picker.text)
    assert launch_id, picker.text[:800]
    back = browser.post(
        picker.url.replace("/lti/launch", "/lti/deep-link"),
        data={"launch": launch_id.group(1), "challenge": slug},
    )
    assert browser.follow_form(back).status_code == 200
    (new,) = set(lms.state.links) - before
    return new


def wait_for(
    condition: Callable[[], Any],
    seconds: float = 30.0,
    what: str = "condition",
    explain: Callable[[], Any] | None = None,
) -> Any:
    """Poll ``condition`` until it is truthy (the passback runs in the background).

    On a timeout the message says what was awaited and, with ``explain``, what was seen.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    seen = f"; seen: {explain()!r}" if explain is not None else ""
    raise AssertionError(f"timed out after {seconds:g} s waiting for {what}{seen}")


def outcomes(service: Service, **where: Any) -> list[dict[str, Any]]:
    """The passback rows (as plain data) matching ``where``, for assertions and diagnostics."""
    from sqlalchemy import select

    from menace_course.service.lti.tables import LtiOutcome

    with service.db.reading() as db:
        query = select(LtiOutcome).filter_by(**where)
        return [
            {
                c: getattr(o, c)
                for c in ("id", "resource_link_id", "challenge", "wanted", "sent", "tries", "last_error")
            }
            for o in db.scalars(query)
        ]


def scores_of(lms: RunningPlatform, sub: str, lineitem_id: str | None = None) -> list[ScorePost]:
    """What the LMS received for ``sub`` (on one line item, if given)."""
    return [s for s in lms.state.scores_for(sub) if lineitem_id is None or s.lineitem_id == lineitem_id]


def check_on_page(browser: Browser, service: Service, slug: str, source: str) -> requests.Response:
    """Press Check my program on the challenge page (the form's way), as the signed-in student."""
    page = browser.get(f"{service.url}/c/{slug}")
    assert page.status_code == 200, page.text[:300]
    done = browser.post(
        f"{service.url}/c/{slug}/check", data={"source": source, "csrf_token": browser.csrf(page)}
    )
    assert done.status_code == 200, done.text[:500]
    return done


@pytest.fixture(autouse=True)
def _quiet_http_logs() -> None:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
