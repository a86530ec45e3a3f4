"""LTI under abuse (issue 22): login CSRF with a nonce from another browser, an instructor of another
course reading a student's page, and passback to a line item URL off the platform's origin.

Every launch is a real one from the test LMS, signed with its key; the attacks are what a
person holding their own valid launch, or their own course, can do with it.
"""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import select

from menace_course.service.db.models import User
from tests.lti.conftest import Browser, Service, add_activity, check_on_page
from tests.lti.lms import RunningPlatform
from tests.support import REPO

pytestmark = pytest.mark.slow

RIGHT_SOURCE = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")


def _form_fields(page: str) -> dict[str, str]:
    return {
        name: html.unescape(value)
        for name, value in re.findall(r"<input type=['\"]hidden['\"] name=['\"](\w+)['\"] value=['\"]([^'\"]*)['\"]", page)
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
