"""LTI under abuse (issue 22): login CSRF with a nonce from another browser, an instructor of another
course reading a student's page, and passback to a line item URL off the platform's origin.

Every launch is a real one from the test LMS, signed with its key; the attacks are what a
person holding their own valid launch, or their own course, can do with it.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import select

from menace_course.service.db.tables import User
from tests.lti.conftest import Browser, Service, add_activity, check_on_page
from tests.lti.lms import RunningPlatform
from tests.support import REPO

pytestmark = pytest.mark.slow

RIGHT_SOURCE = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")


def _form_fields(page: str) -> dict[str, str]:
    return {
        name: html.unescape(value)
        for name, value in re.findall(
            r"<input type=['\"]hidden['\"] name=['\"](\w+)['\"] value=['\"]([^'\"]*)['\"]", page
        )
    }


def _user_id(service: Service, lms: RunningPlatform, subject: str) -> int:
    with service.db.reading() as db:
        found = db.scalar(select(User.id).where(User.issuer == lms.state.issuer, User.subject == subject))
    assert found is not None
    return int(found)


def test_an_id_token_from_one_browsers_login_does_not_sign_in_another_browser(
    service: Service, lms: RunningPlatform
) -> None:
    link = add_activity(lms, "after_game")
    attacker = Browser()
    # The attacker's own launch, up to the LMS's auto-posting form: a valid id_token, unspent.
    form = attacker.get(f"{lms.url}/launch", params={"user": "alice", "link": link})
    stolen = _form_fields(form.text)
    assert stolen.get("id_token") and stolen.get("state")

    # The victim's browser is made to start a login (any page can send it to /lti/login): it
    # holds that login's state cookie, and the attacker's page posts the attacker's token with it.
    victim = Browser()
    to_tool = victim.get(f"{lms.url}/launch", params={"user": "bob", "link": link}, allow_redirects=False)
    to_lms = victim.get(to_tool.headers["Location"], allow_redirects=False)
    (victim_state,) = parse_qs(urlsplit(to_lms.headers["Location"]).query)["state"]
    forced = victim.post(
        f"{service.url}/lti/launch", data={"id_token": stolen["id_token"], "state": victim_state}
    )
    assert forced.status_code == 403, forced.text[:400]
    assert "This launch was refused" in forced.text
    assert "Alice Liddell" not in victim.get(f"{service.url}/c/after_game").text

    # The attacker's token still works where it was meant to: in the browser that started it.
    own = attacker.post(f"{service.url}/lti/launch", data=stolen)
    assert own.status_code == 200 and own.url.endswith("/c/after_game") and "Alice Liddell" in own.text


def test_an_instructor_of_another_course_cannot_read_a_students_page(
    service: Service, lms: RunningPlatform
) -> None:
    link = add_activity(lms, "after_game")
    alice = Browser()
    alice.launch(lms, "alice", link)
    check_on_page(alice, service, "after_game", RIGHT_SOURCE)
    alice_id = _user_id(service, lms, "alice")
    page = f"{service.url}/instructor/c/after_game/{alice_id}"

    ines = Browser()  # course A's instructor: her student
    ines.launch(lms, "ines", add_activity(lms, "after_game"))
    mine = ines.get(page)
    assert mine.status_code == 200 and "Alice Liddell" in mine.text

    dora = Browser()  # course B's instructor: not hers
    dora.launch(lms, "dora", add_activity(lms, "after_game", teacher="dora"))
    other = dora.get(page)
    assert other.status_code == 404 and "Alice" not in other.text


class _Catcher:
    """An HTTP server that records every request it gets (a host a launch should never reach)."""

    def __init__(self) -> None:
        import http.server
        import threading

        seen = self.seen = []  # type: ignore[var-annotated]

        class Handler(http.server.BaseHTTPRequestHandler):
            def _record(self) -> None:
                seen.append((self.command, self.path, self.headers.get("Authorization")))
                body = b'{"id": "x"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = _record

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"


@pytest.mark.parametrize("which", ["lineitem", "lineitems"])
def test_passback_never_sends_the_access_token_to_a_grade_url_off_the_platforms_origin(
    service: Service, lms: RunningPlatform, which: str
) -> None:
    from tests.lti.conftest import outcomes, wait_for

    catcher = _Catcher()
    link = add_activity(lms, "count_boxes")
    lms.state.links[link].lineitem_id = None if which == "lineitems" else lms.state.links[link].lineitem_id

    def elsewhere(message: dict[str, object]) -> dict[str, object]:
        claim = dict(message[AGS])  # type: ignore[call-overload]
        claim[which] = f"{catcher.url}/api/course-a/lineitems" + ("/li999" if which == "lineitem" else "")
        if which == "lineitems":
            claim.pop("lineitem", None)
        return {**message, AGS: claim}

    lms.state.mutate_claims = elsewhere
    try:
        browser = Browser()
        page = browser.launch(lms, "bob", link)
    finally:
        lms.state.mutate_claims = None
    assert page.url.endswith("/c/count_boxes")
    check_on_page(browser, service, "count_boxes", "def count_boxes():\n    return 0\n")
    try:
        tried = wait_for(
            lambda: [o for o in outcomes(service, resource_link_id=link) if o["tries"] or o["sent"]],
            what="a passback try",
            explain=lambda: outcomes(service, resource_link_id=link),
        )
        assert catcher.seen == []  # no request at all, so no token
        if which == "lineitems":
            assert tried[0]["sent"] == 0  # nowhere on the platform to send it
        else:  # the platform's own lineitems URL is still good: the score goes to a column there
            assert tried[0]["sent"] == 1 and lms.state.scores_for("bob")
    finally:
        catcher.stop()


def test_a_canvas_registration_names_its_grades_host_and_nothing_else_gets_the_token(tmp_path: Path) -> None:
    from menace_course.service.db.engine import Database
    from menace_course.service.lti.origins import on_platform, registered_origins
    from menace_course.service.lti.tables import LtiPlatform
    from tests.lti.conftest import copy_course
    from tests.lti.test_lti_commands import PLATFORM, menace

    course = copy_course(tmp_path / "course")
    done = menace(
        "lti", "add-platform", *PLATFORM, "--grades-origin", "https://school.instructure.com", course=course
    )
    assert done.returncode == 0, done.stderr
    bad = menace(
        "lti", "add-platform", *PLATFORM, "--grades-origin", "http://evil.example.org", course=course
    )
    assert bad.returncode == 2 and "--grades-origin 'http://evil.example.org': must use https" in bad.stderr
    db = Database(f"sqlite:///{course / '.menace' / 'service.sqlite3'}")
    try:
        with db.reading() as session:
            platform = session.scalars(select(LtiPlatform)).one()
            origins = registered_origins(session, platform)
    finally:
        db.dispose()
    assert on_platform("https://school.instructure.com/api/lti/courses/1/line_items/7", origins)
    assert on_platform("https://sso.canvaslms.com/x", origins)
    for url in (
        "https://other-school.instructure.com/api/lti/courses/1/line_items/7",
        "https://school.instructure.com.evil.org/x",
        "http://school.instructure.com/x",
        "https://school.instructure.com:8443/x",
        "https://user@school.instructure.com/x",
        "http://127.0.0.1/x",
        "file:///etc/passwd",
    ):
        assert not on_platform(url, origins), url


def test_a_second_launch_in_the_same_browser_says_who_is_signed_in_and_how_to_go_on(
    service: Service, lms: RunningPlatform
) -> None:
    link = add_activity(lms, "after_game")
    browser = Browser()
    alices_tab = browser.launch(lms, "alice", link)
    assert "Alice Liddell" in alices_tab.text
    token = browser.csrf(alices_tab)
    alice_id = re.search(r'name="signed_in_as" value="(\d+)"', alices_tab.text)
    assert alice_id
    browser.launch(lms, "bob", link)  # a second tab, another person: the browser is Bob's now
    before = _attempts_of(service, int(alice_id.group(1)))

    form = browser.post(  # Alice's tab, without JavaScript
        f"{service.url}/c/after_game/check",
        data={"source": RIGHT_SOURCE, "csrf_token": token, "signed_in_as": alice_id.group(1)},
    )
    assert form.status_code == 409, form.text[:400]
    text = html.unescape(form.text)
    assert "now signed in as Bob Cratchit" in text and "open the activity again from the LMS" in text
    assert "private window" in text and "stale or forged" not in text
    script = browser.post(  # Alice's tab, with JavaScript (check.js)
        f"{service.url}/api/v1/checks",
        json={"challenge": "after_game", "source": RIGHT_SOURCE},
        headers={"X-CSRFToken": token, "X-Signed-In-As": alice_id.group(1)},
    )
    assert script.status_code == 409 and "now signed in as Bob Cratchit" in script.json()["message"]
    assert _attempts_of(service, int(alice_id.group(1))) == before  # nothing was checked


def _attempts_of(service: Service, user_id: int) -> int:
    from sqlalchemy import func

    from menace_course.service.db.tables import Attempt

    with service.db.reading() as db:
        return int(
            db.scalar(select(func.count()).select_from(Attempt).where(Attempt.user_id == user_id)) or 0
        )
