"""The pages: a challenge with its editor and Check my program, sign-in (token, one-time link),
CSRF, cookies, open practice, and the instructor's class table."""

from __future__ import annotations

import re
from typing import Any

from menace_course.service.db.people import local_user, new_login_link
from menace_course.service.db.tables import Role
from tests.service.support import BUGGY, CORRECT, add_user, bearer


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found, page[:300]
    return found.group(1)


def _sign_in(client: Any, token: str) -> None:
    page = client.get("/login").get_data(as_text=True)
    answer = client.post("/login", data={"csrf_token": _csrf(page), "token": token, "next": "/c/after_game"})
    assert answer.status_code == 303 and answer.headers["Location"] == "/c/after_game"


def test_the_index_lists_every_challenge(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    for slug in ("after_game", "count_boxes", "name", "new_box", "opening_box", "play_game"):
        assert f'href="/c/{slug}"' in page


def test_a_challenge_page_has_the_task_the_starter_and_the_button(client: Any) -> None:
    page = client.get("/c/after_game").get_data(as_text=True)
    assert "<h1>★ Back into the box" in page and "<table>" in page  # the README, rendered
    textarea = re.search(
        r'<textarea id="source" name="source" data-editor="python"[^>]*>(.*?)</textarea>', page, re.S
    )
    assert textarea and "def after_game(beads, square, result):" in textarea.group(1)
    assert '<button type="submit" id="check-button">Check my program</button>' in page
    assert "/static/dist/editor.js" in page  # the CodeMirror bundle upgrades the textarea
    assert client.get("/c/no_such").status_code == 404


def test_the_form_checks_without_javascript_and_the_page_keeps_code_and_attempts(
    service_app: Any, client: Any
) -> None:
    _, token = add_user(service_app)
    _sign_in(client, token)
    page = client.get("/c/after_game").get_data(as_text=True)
    answer = client.post("/c/after_game/check", data={"csrf_token": _csrf(page), "source": BUGGY.read_text()})
    assert answer.status_code == 303
    shown = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "A loss on a square that has no beads left keeps it at 0" in shown  # in the feedback frame
    assert "srcdoc=" in shown and 'sandbox="allow-same-origin"' in shown
    # A reload: the last code is in the editor and the attempt is listed.
    again = client.get("/c/after_game").get_data(as_text=True)
    assert "beads[square] -= 1" in again
    assert re.search(r"<td>6 / 15</td>", again)


def test_a_form_without_its_csrf_token_is_refused(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app)
    _sign_in(client, token)
    answer = client.post("/c/after_game/check", data={"source": CORRECT.read_text()})
    assert answer.status_code == 400
    login = client.post("/login", data={"token": token})
    assert login.status_code == 400


def test_the_api_takes_the_session_cookie_only_with_the_csrf_header(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app)
    _sign_in(client, token)
    body = {"challenge": "after_game", "source": CORRECT.read_text()}
    assert client.post("/api/v1/checks", json=body).status_code == 403
    page = client.get("/c/after_game").get_data(as_text=True)
    answer = client.post("/api/v1/checks?wait=30", json=body, headers={"X-CSRFToken": _csrf(page)})
    assert answer.status_code == 200 and answer.get_json()["report"]["passed"]


def test_the_session_cookie_is_httponly_samesite_and_secure_over_https(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app)
    page = client.get("/login").get_data(as_text=True)
    answer = client.post("/login", data={"csrf_token": _csrf(page), "token": token})
    cookie = answer.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    secure = service_app.test_client()
    page = secure.get("/login", base_url="https://localhost").get_data(as_text=True)
    answer = secure.post(
        "/login",
        data={"csrf_token": _csrf(page), "token": token},
        base_url="https://localhost",
        headers={"Referer": "https://localhost/login"},
    )
    assert "Secure" in answer.headers["Set-Cookie"]


def test_a_wrong_token_does_not_sign_in(client: Any) -> None:
    page = client.get("/login").get_data(as_text=True)
    answer = client.post("/login", data={"csrf_token": _csrf(page), "token": "mc_wrong"})
    assert answer.status_code == 401 and "not valid" in answer.get_data(as_text=True)


def test_a_login_link_works_once_and_only_when_its_button_is_pressed(service_app: Any, client: Any) -> None:
    add_user(service_app, name="linked")
    service = service_app.extensions["menace"]
    with service.db.writing() as session:
        user = local_user(session, "linked")
        assert user is not None
        code = new_login_link(session, user)
    opened = client.get(f"/login/{code}")
    assert opened.status_code == 303 and opened.headers["Location"] == "/login/link"
    shown = client.get("/login/link")
    assert shown.status_code == 200 and "Sign in as linked" in shown.get_data(as_text=True)
    assert client.get(f"/login/{code}").status_code == 303  # looking at it (a link preview) spends nothing
    pressed = client.post("/login/link", data={"csrf_token": _csrf(shown.get_data(as_text=True))})
    assert pressed.status_code == 303
    assert "linked" in client.get("/").get_data(as_text=True)
    other = service_app.test_client()
    assert other.get(f"/login/{code}").status_code == 410
    assert other.get("/login/link").status_code == 410  # no link opened in this browser


def test_revoking_a_user_ends_their_browser_session(service_app: Any, client: Any) -> None:
    from menace_course.service.db.people import revoke

    _, token = add_user(service_app, name="leaving")
    _sign_in(client, token)
    assert "leaving" in client.get("/").get_data(as_text=True)
    with service_app.extensions["menace"].db.writing() as session:
        user = local_user(session, "leaving")
        assert user is not None
        revoke(session, user)
    assert "leaving" not in client.get("/").get_data(as_text=True)
    assert (
        client.post(
            "/api/v1/checks", json={"challenge": "after_game", "source": ""}, headers=bearer(token)
        ).status_code
        == 401
    )


def test_the_instructor_sees_the_class_table_and_each_attempt(service_app: Any, client: Any) -> None:
    student_id, student = add_user(service_app, name="zoe")
    _, teacher = add_user(service_app, name="teacher", instructor=True)
    ids = []
    for path in (BUGGY, CORRECT, BUGGY):
        check = client.post(
            "/api/v1/checks?wait=30",
            json={"challenge": "after_game", "source": path.read_text()},
            headers=bearer(student),
        ).get_json()
        ids.append(check["id"])
    _sign_in(client, student)
    assert client.get("/instructor/c/after_game").status_code == 403
    teacher_client = service_app.test_client()
    _sign_in(teacher_client, teacher)
    table = teacher_client.get("/instructor/c/after_game").get_data(as_text=True)
    row = re.search(r"<tr>\s*<td>zoe</td>(.*?)</tr>", table, re.S)
    assert row, table
    cells = re.findall(r"<td>(.*?)</td>", row.group(1), re.S)
    assert ">15 / 15</a>" in cells[0] and f"/attempts/{ids[1]}" in cells[0]  # best
    assert ">6 / 15</a>" in cells[1] and f"/attempts/{ids[2]}" in cells[1]  # latest
    assert cells[2] == "3"
    every = teacher_client.get(f"/instructor/c/after_game/{student_id}").get_data(as_text=True)
    assert all(f"/attempts/{i}/source" in every for i in ids)
    feedback = teacher_client.get(f"/attempts/{ids[0]}")
    assert feedback.status_code == 200 and "<!doctype html>" in feedback.get_data(as_text=True)
    source = teacher_client.get(f"/attempts/{ids[0]}/source")
    assert source.mimetype == "text/plain" and source.get_data(as_text=True) == BUGGY.read_text()
    assert client.get(f"/attempts/{ids[0]}").status_code == 200  # the student's own
    stranger = service_app.test_client()
    _, other = add_user(service_app)
    _sign_in(stranger, other)
    assert stranger.get(f"/attempts/{ids[0]}").status_code == 403


def test_pages_carry_a_content_security_policy(client: Any) -> None:
    headers = client.get("/c/after_game").headers
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_role_is_per_context(service_app: Any) -> None:
    from menace_course.service.db.people import context_for, role_in, set_role, user_for

    with service_app.extensions["menace"].db.writing() as session:
        user = user_for(session, "https://lms.example", "sub-9", "Ann")
        one, two = (
            context_for(session, "https://lms.example", "c1"),
            context_for(session, "https://lms.example", "c2"),
        )
        set_role(session, user, one, Role.INSTRUCTOR)
        assert role_in(session, user.id, one.id) is Role.INSTRUCTOR
        assert role_in(session, user.id, two.id) is None


def test_the_class_tables_list_every_student_of_the_roster_with_no_attempt_for_who_never_checked(
    service_app: Any, client: Any
) -> None:
    _, zoe = add_user(service_app, name="roster_zoe")
    add_user(service_app, name="roster_ann")  # never checks anything
    _, teacher = add_user(service_app, name="roster_teacher", instructor=True)
    client.post(
        "/api/v1/checks?wait=30",
        json={"challenge": "after_game", "source": CORRECT.read_text()},
        headers=bearer(zoe),
    )
    _sign_in(client, teacher)
    table = client.get("/instructor/c/after_game").get_data(as_text=True)
    ann = re.search(r"<tr>\s*<td>roster_ann</td>(.*?)</tr>", table, re.S)
    assert ann and "no attempt" in ann.group(1)
    counted = re.search(r"(\d+) students?, (\d+) with an attempt", table)
    assert counted and int(counted.group(1)) > int(counted.group(2))  # ann is counted, not checked
    assert "<td>roster_teacher</td>" not in table  # instructors are not on the roster

    overview = client.get("/instructor").get_data(as_text=True)
    assert 'id="class-overview"' in overview
    rows = dict(re.findall(r"<tr><td>(\w+)</td>(.*?)</tr>", overview, re.S))
    assert {"roster_ann", "roster_zoe"} <= set(rows) and "roster_teacher" not in rows
    assert (
        ">15 / 15</a>" in rows["roster_zoe"] and rows["roster_zoe"].count("no attempt") == 5
    )  # 6 challenges
    assert rows["roster_ann"].count("no attempt") == 6


def test_a_challenge_pages_starter_points_to_the_text_on_the_page_not_to_a_terminal_command(
    client: Any,
) -> None:
    for slug in ("after_game", "count_boxes", "name", "new_box", "opening_box", "play_game"):
        page = client.get(f"/c/{slug}").get_data(as_text=True)
        editor = re.search(r'<textarea id="source"[^>]*>(.*?)</textarea>', page, re.S)
        assert editor, slug
        assert "menace show" not in editor.group(1)
        assert "The whole text: on this page, above the editor." in editor.group(1)


def test_an_instructors_attempt_page_says_whose_and_when_links_the_rest_and_what_the_student_did_not_see(
    service_app: Any, client: Any
) -> None:
    _, pat = add_user(service_app, name="attempt_pat")
    _, teacher = add_user(service_app, name="attempt_teacher", instructor=True)
    leaky = "def after_game(beads, square, result):\n    raise ValueError('seen by the instructor only')\n"
    ids = []
    for source in (BUGGY.read_text(), leaky, CORRECT.read_text()):
        check = client.post(
            "/api/v1/checks?wait=30", json={"challenge": "after_game", "source": source}, headers=bearer(pat)
        ).get_json()
        ids.append(check["id"])
    _sign_in(client, teacher)
    page = client.get(f"/attempts/{ids[1]}").get_data(as_text=True)
    assert "<h1>attempt_pat: " in page and "Attempt 2 of 3, checked " in page
    assert f'href="/attempts/{ids[0]}" rel="prev"' in page and f'href="/attempts/{ids[2]}" rel="next"' in page
    assert f'href="/attempts/{ids[1]}/source"' in page and "every attempt of attempt_pat" in page
    assert 'srcdoc="' in page  # the feedback the student read, in its frame
    unseen = page.split("What the student did not see", 1)[1]
    assert "seen by the instructor only" in unseen and "(hidden)" in unseen

    student = service_app.test_client()
    _sign_in(student, pat)
    own = student.get(f"/attempts/{ids[1]}").get_data(as_text=True)
    assert "What the student did not see" not in own and 'rel="prev"' not in own  # the feedback alone
