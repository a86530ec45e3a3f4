"""The whole LTI flow against a platform we did not write (lti1p3platform), over real HTTP.

Login, deep linking, a launch, a check, the score at the platform's grade service; both
score policies; a line item made and reused when the link has none; passback while the
LMS is down; who sees what.
"""

from __future__ import annotations

import re
import threading
from datetime import datetime
from urllib.parse import parse_qs, urlparse

import jwt
import pytest
import requests
from sqlalchemy import select

from menace_course.service.db.tables import Context, Membership, Role, User
from menace_course.service.lti.storage import bound_nonce
from menace_course.service.lti.tables import LtiOutcome, LtiStoreEntry
from tests.lti.conftest import Browser, Service, add_activity, check_on_page, outcomes, scores_of, wait_for
from tests.lti.lms import Link, RunningPlatform
from tests.support import REPO

pytestmark = pytest.mark.slow

RIGHT = (REPO / "reference" / "after_game.py").read_text(encoding="utf-8")
WRONG = (REPO / "challenges" / "after_game" / "wrong" / "no_floor.py").read_text(encoding="utf-8")


def test_login_stores_a_nonce_and_sends_the_browser_to_the_platform_with_state(
    service: Service, lms: RunningPlatform
) -> None:
    browser = Browser()
    answer = browser.get(
        f"{service.url}/lti/login",
        params={
            "iss": lms.state.issuer,
            "login_hint": "alice",
            "target_link_uri": f"{service.url}/lti/launch",
            "lti_message_hint": "x",
            "client_id": lms.state.client_id,
        },
        allow_redirects=False,
    )
    assert answer.status_code == 302
    target = urlparse(answer.headers["Location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == lms.state.auth_login_url
    query = {k: v[0] for k, v in parse_qs(target.query).items()}
    assert query["scope"] == "openid" and query["response_type"] == "id_token"
    assert query["response_mode"] == "form_post" and query["prompt"] == "none"
    assert query["client_id"] == lms.state.client_id and query["redirect_uri"] == f"{service.url}/lti/launch"
    assert query["login_hint"] == "alice" and query["lti_message_hint"] == "x"
    assert browser.cookies.get(f"lti1p3-{query['state']}") == query["state"]
    with service.db.reading() as db:
        keys = set(db.scalars(select(LtiStoreEntry.key)))
    # The nonce is kept bound to this login's state (so to this browser's state cookie).
    assert f"lti1p3-nonce-{bound_nonce(query['nonce'], query['state'])}" in keys
    assert f"lti1p3-nonce-{query['nonce']}" not in keys


def test_deep_linking_puts_the_picked_challenge_and_its_maximum_score_in_the_course(
    service: Service, lms: RunningPlatform
) -> None:
    link_id = add_activity(lms, "after_game")
    link = lms.state.links[link_id]
    assert link.custom == {"challenge": "after_game"}
    assert link.url == f"{service.url}/lti/launch"
    item = lms.state.lineitems[link.lineitem_id or ""]
    assert item["scoreMaximum"] == service.lti.max_score("after_game") == 15
    assert item["tag"] == "menace:after_game" and item["resourceId"] == "after_game"
    (response,) = lms.state.deep_link_responses[-1:]
    assert [i["type"] for i in response] == ["ltiResourceLink"]


def test_a_learner_lands_on_the_challenge_signed_in_under_the_platforms_id_and_name(
    service: Service, lms: RunningPlatform
) -> None:
    link_id = add_activity(lms, "after_game")
    page = Browser().launch(lms, "alice", link_id)
    assert page.url == f"{service.url}/c/after_game"
    assert "Alice Liddell" in page.text
    with service.db.reading() as db:
        user = db.scalar(select(User).where(User.issuer == lms.state.issuer, User.subject == "alice"))
        assert user is not None and user.name == "Alice Liddell"
        membership = db.scalar(select(Membership).where(Membership.user_id == user.id))
        assert membership is not None and membership.role is Role.LEARNER
        context = db.get(Context, membership.context_id)
        assert context is not None
        assert (context.issuer, context.key, context.title) == (
            lms.state.issuer,
            f"{lms.state.client_id}/deployment-1/course-a",
            "MENACE (autumn)",
        )


def test_each_check_sends_the_score_to_the_platforms_grade_service(
    service: Service, lms: RunningPlatform
) -> None:
    link_id = add_activity(lms, "after_game")
    lineitem = lms.state.links[link_id].lineitem_id
    browser = Browser()
    browser.launch(lms, "bob", link_id)
    feedback = check_on_page(browser, service, "after_game", WRONG)
    assert "no_floor" not in feedback.text  # the student's page, not a traceback
    (post,) = wait_for(lambda: scores_of(lms, "bob", lineitem), what="bob's score")
    body = post.body
    assert set(body) == {
        "userId",
        "scoreGiven",
        "scoreMaximum",
        "activityProgress",
        "gradingProgress",
        "timestamp",
    }
    assert body["userId"] == "bob" and body["scoreMaximum"] == 15
    assert 0 < body["scoreGiven"] < 15
    assert (body["activityProgress"], body["gradingProgress"]) == ("Completed", "FullyGraded")
    stamp = datetime.fromisoformat(body["timestamp"])
    assert stamp.tzinfo is not None and re.search(r"\.\d{6}", body["timestamp"])
    token = lms.state.token_requests[-1]
    assert token["grant_type"] == "client_credentials"
    assert token["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in token["scope"].split()

    # "best": a worse check later leaves the gradebook at the better score.
    check_on_page(browser, service, "after_game", RIGHT)
    wait_for(lambda: any(s.body["scoreGiven"] == 15 for s in scores_of(lms, "bob", lineitem)), what="15/15")
    check_on_page(browser, service, "after_game", WRONG)
    wait_for(lambda: len(scores_of(lms, "bob", lineitem)) >= 3, what="the third passback")
    latest = max(scores_of(lms, "bob", lineitem), key=lambda s: s.body["timestamp"])
    assert latest.body["scoreGiven"] == 15


def test_a_latest_policy_challenge_sends_the_last_score_even_when_lower(
    service: Service, lms: RunningPlatform
) -> None:
    link_id = add_activity(lms, "count_boxes")
    lineitem = lms.state.links[link_id].lineitem_id
    browser = Browser()
    browser.launch(lms, "alice", link_id)
    right = (REPO / "reference" / "count_boxes.py").read_text(encoding="utf-8")
    wrong = next((REPO / "challenges" / "count_boxes" / "wrong").glob("*.py")).read_text(encoding="utf-8")
    check_on_page(browser, service, "count_boxes", right)
    top = wait_for(lambda: scores_of(lms, "alice", lineitem), what="alice's first score")[0].body[
        "scoreGiven"
    ]
    check_on_page(browser, service, "count_boxes", wrong)
    wait_for(lambda: len(scores_of(lms, "alice", lineitem)) >= 2, what="the second passback")
    latest = max(scores_of(lms, "alice", lineitem), key=lambda s: s.body["timestamp"])
    assert latest.body["scoreGiven"] < top


def test_a_link_without_a_grade_column_gets_one_made_once_and_reused(
    service: Service, lms: RunningPlatform
) -> None:
    with lms.state.lock:
        lms.state.links["plain"] = Link(
            "plain",
            "course-a",
            "Made by hand",
            f"{service.url}/lti/launch",
            {"challenge": "after_game"},
            None,
        )
    before = set(lms.state.lineitems)
    for student in ("alice", "bob"):
        browser = Browser()
        browser.launch(lms, student, "plain")
        check_on_page(browser, service, "after_game", RIGHT)
    made = wait_for(lambda: set(lms.state.lineitems) - before, what="a line item made by the tool")
    wait_for(
        lambda: {s.body["userId"] for s in lms.state.scores if s.lineitem_id in made} == {"alice", "bob"},
        what="both scores on the made line item",
    )
    (lineitem_id,) = made
    item = lms.state.lineitems[lineitem_id]
    assert (item["resourceLinkId"], item["tag"], item["scoreMaximum"]) == ("plain", "menace:after_game", 15)


def test_a_score_is_kept_while_the_lms_is_down_and_sent_when_it_is_back(
    service: Service, lms: RunningPlatform
) -> None:
    from prometheus_client import REGISTRY

    def counted(name: str) -> float:  # this process's /metrics counters (the service runs in it)
        return REGISTRY.get_sample_value(name) or 0.0

    failures, retries = counted("menace_passback_failures_total"), counted("menace_passback_retries_total")
    link_id = add_activity(lms, "after_game")
    lineitem = lms.state.links[link_id].lineitem_id
    browser = Browser()
    browser.launch(lms, "alice", link_id)
    lms.stop()
    restarted = None
    try:
        feedback = check_on_page(browser, service, "after_game", RIGHT)
        assert "after_game" in feedback.text  # the student's check did not wait for the LMS
        outcome = wait_for(
            lambda: failed_outcome(service, link_id),
            what="a failed passback",
            explain=lambda: outcomes(service, resource_link_id=link_id),
        )
        assert outcome.due and outcome.last_error == "the LMS could not be reached"
        assert scores_of(lms, "alice", lineitem) == []
    finally:
        restarted = lms.restart()
    (post,) = wait_for(
        lambda: scores_of(restarted, "alice", lineitem),
        seconds=60,
        what="the retried passback",
        explain=lambda: outcomes(service, resource_link_id=link_id),
    )
    assert post.body["scoreGiven"] == 15
    assert counted("menace_passback_failures_total") > failures
    assert counted("menace_passback_retries_total") > retries

    def settled() -> bool:
        # The LMS has the score as soon as the post arrives; the service records that it was
        # sent once the answer is back, a moment later.
        with service.db.reading() as db:
            outcome = db.scalar(select(LtiOutcome).where(LtiOutcome.resource_link_id == link_id))
            return outcome is not None and not outcome.due and outcome.last_error is None

    wait_for(
        settled,
        what="the passback recorded as sent",
        explain=lambda: outcomes(service, resource_link_id=link_id),
    )
    lms.server, lms.thread = restarted.server, restarted.thread


def test_a_slow_lms_does_not_hold_up_the_students_check(service: Service, lms: RunningPlatform) -> None:
    link_id = add_activity(lms, "after_game")
    lineitem = lms.state.links[link_id].lineitem_id
    browser = Browser()
    browser.launch(lms, "bob", link_id)
    lms.state.hold_scores = threading.Event()
    try:
        check_on_page(browser, service, "after_game", WRONG)  # the first check: its score is held
        wait_for(lambda: lms.state.held, what="the score post to reach the LMS")
        feedback = check_on_page(browser, service, "after_game", RIGHT)  # answered while it waits
        wait_for(lambda: "passes all 15 checks" in browser.get(feedback.url).text, what="the feedback")
        assert lms.state.held and not scores_of(lms, "bob", lineitem)
    finally:
        lms.state.hold_scores.set()
        lms.state.hold_scores = None
    wait_for(
        lambda: any(s.body["scoreGiven"] == 15 for s in scores_of(lms, "bob", lineitem)),
        what="the best score after the slow one",
    )


def failed_outcome(service: Service, link_id: str) -> LtiOutcome | None:
    with service.db.reading() as db:
        return db.scalar(
            select(LtiOutcome).where(LtiOutcome.resource_link_id == link_id, LtiOutcome.tries > 0)
        )


def test_the_instructor_sees_passback_state_and_can_send_again(
    service: Service, lms: RunningPlatform
) -> None:
    link_id = add_activity(lms, "after_game")
    lineitem = lms.state.links[link_id].lineitem_id
    student = Browser()
    student.launch(lms, "bob", link_id)
    check_on_page(student, service, "after_game", RIGHT)
    wait_for(lambda: scores_of(lms, "bob", lineitem), what="bob's score")
    teacher = Browser()
    teacher.launch(lms, "ines", link_id)
    table = teacher.get(f"{service.url}/lti/grades")
    assert table.status_code == 200
    row = re.search(
        rf'<tr data-student="bob" data-challenge="after_game" data-link="{link_id}">.*?</tr>',
        table.text,
        re.S,
    )
    assert row and "sent" in row.group(0) and "15/15" in row.group(0)
    outcome_id = re.search(r"/lti/grades/(\d+)/resend", row.group(0))
    assert outcome_id
    sent = len(scores_of(lms, "bob", lineitem))
    again = teacher.post(
        f"{service.url}/lti/grades/{outcome_id.group(1)}/resend", data={"csrf_token": teacher.csrf(table)}
    )
    assert again.status_code == 200
    wait_for(lambda: len(scores_of(lms, "bob", lineitem)) > sent, what="the resent score")


def test_learners_see_only_their_own_work_and_a_course_never_sees_another(
    service: Service, lms: RunningPlatform
) -> None:
    link_id = add_activity(lms, "after_game")
    alice, bob, tom = Browser(), Browser(), Browser()
    alice.launch(lms, "alice", link_id)
    done = check_on_page(alice, service, "after_game", WRONG)
    attempt = re.search(r"attempt=([0-9a-f-]{36})", done.url)
    assert attempt
    attempt_url = f"{service.url}/attempts/{attempt.group(1)}"
    assert alice.get(attempt_url).status_code == 200

    bob.launch(lms, "bob", link_id)
    assert bob.get(attempt_url).status_code == 403
    assert bob.get(f"{service.url}/lti/grades").status_code == 403

    tom.launch(lms, "tom", link_id)  # a teaching assistant of the same course
    assert tom.get(attempt_url).status_code == 200
    assert tom.get(f"{service.url}/lti/grades").status_code == 200

    # Course B (another deployment): its instructor sees none of course A.
    b_link = add_activity(lms, "after_game", teacher="dora")
    dora = Browser()
    dora.launch(lms, "dora", b_link)
    assert dora.get(attempt_url).status_code == 403
    table = dora.get(f"{service.url}/lti/grades")
    assert table.status_code == 200 and 'data-student="alice"' not in table.text
    carol = Browser()
    carol.launch(lms, "carol", b_link)
    assert carol.get(attempt_url).status_code == 403


def test_the_jwks_serves_the_tools_current_key(service: Service) -> None:
    keys = requests.get(f"{service.url}/lti/jwks", timeout=10).json()["keys"]
    assert keys[0]["kid"] == service.lti.keys.current().kid
    assert all(k["kty"] == "RSA" and k["alg"] == "RS256" and "d" not in k for k in keys)


def test_during_a_key_rotation_both_keys_are_published_and_the_lms_accepts_the_new_one(
    service: Service, lms: RunningPlatform
) -> None:
    """``menace lti rotate-keys`` on a running service: /lti/jwks serves the new and the old key
    at once; the LMS verifies the tool's next signed messages (a deep linking answer, a
    token request for a passback) against that JWKS, signed with the new key."""
    from menace_course.service.lti.passback import TokenCachingConnector

    keys = service.lti.keys
    old = keys.current()
    new = keys.rotate()
    try:
        published = requests.get(f"{service.url}/lti/jwks", timeout=10).json()["keys"]
        assert [k["kid"] for k in published] == [new.kid, old.kid]
        TokenCachingConnector.forget()  # the next call to the LMS's services asks for a new token
        asked = len(lms.state.token_requests)  # the launch may ask first; the passback reuses it
        link_id = add_activity(lms, "after_game")  # the LMS checked its signature, or refused it
        browser = Browser()
        browser.launch(lms, "bob", link_id)
        check_on_page(browser, service, "after_game", RIGHT)
        wait_for(lambda: scores_of(lms, "bob", lms.state.links[link_id].lineitem_id), what="bob's score")
        made = lms.state.token_requests[asked:]
        assert made and {jwt.get_unverified_header(r["client_assertion"])["kid"] for r in made} == {new.kid}
    finally:
        assert keys.finish_rotation() == [old.kid]
    assert [k["kid"] for k in requests.get(f"{service.url}/lti/jwks", timeout=10).json()["keys"]] == [new.kid]


def test_a_check_from_the_lesson_page_reaches_the_gradebook_like_one_from_the_challenge_page(
    service: Service, lms: RunningPlatform
) -> None:
    """The lesson page's Check my program (the service's API, with the session and the page's
    CSRF token) is the same one path: the launched student's score goes to the LMS."""
    link_id = add_activity(lms, "after_game")
    lineitem = lms.state.links[link_id].lineitem_id
    browser = Browser()
    browser.launch(lms, "alice", link_id)
    page = browser.get(f"{service.url}/lesson")
    assert page.status_code == 200 and "Signed in as Alice Liddell" in page.text
    sent_before = len(scores_of(lms, "alice", lineitem))
    answer = browser.post(
        f"{service.url}/api/v1/checks?wait=30",
        json={"challenge": "after_game", "filename": "after_game.py", "source": RIGHT},
        headers={"X-CSRFToken": browser.csrf(page)},
    )
    assert answer.status_code in (200, 201, 202), answer.text[:300]
    wait_for(
        lambda: len(scores_of(lms, "alice", lineitem)) > sent_before,
        what="the score of the lesson page's check",
        explain=lambda: outcomes(service, resource_link_id=link_id),
    )
    assert scores_of(lms, "alice", lineitem)[-1].body["scoreGiven"] == 15
