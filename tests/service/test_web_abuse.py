"""The service's pages and API under abuse (issue 22): each test is an attack, as an attacker sends it.

Signing out ends the session on the server; a login link's code never reaches a Referer;
signed-in answers are never cached; malformed input (deep JSON, lone surrogates, huge
numbers, NUL bytes anywhere) gets a 4xx with a JSON sentence, never a 500, and nothing raw in
the log; a file name with a folder part is refused; ``/healthz`` tells strangers only ok;
forwarded headers count only from the configured proxy.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import Any

import pytest

from menace_course.service.db.people import local_user, new_login_link
from tests.service.support import CORRECT, add_user, bearer


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found, page[:300]
    return found.group(1)


def _sign_in(client: Any, token: str) -> None:
    page = client.get("/login").get_data(as_text=True)
    answer = client.post("/login", data={"csrf_token": _csrf(page), "token": token})
    assert answer.status_code == 303


def _cookie(client: Any) -> str:
    cookie = client.get_cookie("menace_session")
    assert cookie is not None
    return str(cookie.value)


# -- sessions and sign-in links -------------------------------------------------------------


def test_a_copied_session_cookie_stops_working_when_its_owner_signs_out(
    service_app: Any, client: Any
) -> None:
    _, token = add_user(service_app, name="careful")
    _sign_in(client, token)
    stolen = _cookie(client)
    page = client.get("/").get_data(as_text=True)
    assert "careful" in page
    thief = service_app.test_client()
    thief.set_cookie("menace_session", stolen)
    assert "careful" in thief.get("/").get_data(as_text=True)  # the copy works while signed in

    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert csrf
    assert client.post("/logout", data={"csrf_token": csrf.group(1)}).status_code == 303
    assert "careful" not in thief.get("/").get_data(as_text=True)
    assert thief.post("/api/v1/checks", json={}, headers={"X-CSRFToken": "x"}).status_code in (400, 401, 403)
    _sign_in(client, token)  # signing in again works
    assert "careful" in client.get("/").get_data(as_text=True)


def test_a_login_links_code_never_reaches_a_referer_or_the_page_it_signs_in_from(
    service_app: Any, client: Any
) -> None:
    add_user(service_app, name="linked2")
    with service_app.extensions["menace"].db.writing() as session:
        user = local_user(session, "linked2")
        assert user is not None
        code = new_login_link(session, user)
    opened = client.get(f"/login/{code}")
    assert opened.status_code == 303 and code not in opened.headers["Location"]
    assert opened.headers["Referrer-Policy"] == "no-referrer"
    page = client.get(opened.headers["Location"])
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "Sign in as linked2" in text
    assert code not in text  # neither in the form's action nor anywhere a subresource could carry it
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert page.headers["Cache-Control"] == "no-store"
    signed = client.post(opened.headers["Location"], data={"csrf_token": _csrf(text)})
    assert signed.status_code == 303 and signed.headers["Referrer-Policy"] == "no-referrer"
    assert "linked2" in client.get("/").get_data(as_text=True)


def test_the_access_log_leaves_a_login_code_out_of_the_path_and_the_referer() -> None:
    from types import SimpleNamespace

    from gunicorn.config import Config

    from menace_course.service.server import RedactingLogger

    logger = RedactingLogger(Config())
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": "/login/mc_secretcode",
        "PATH_INFO": "/login/mc_secretcode",
        "QUERY_STRING": "",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_REFERER": "https://menace.example.edu/login/mc_secretcode",
        "REMOTE_ADDR": "127.0.0.1",
    }
    request = SimpleNamespace(
        headers=[("REFERER", environ["HTTP_REFERER"])],
        method="GET",
        uri="/",
        path="/",
        query="",
        version=(1, 1),
        peer_addr=("127.0.0.1", 1),
    )
    response = SimpleNamespace(status="303 See Other", response_length=0, sent=0, headers=[])
    atoms = logger.atoms(response, request, environ, SimpleNamespace(seconds=0, microseconds=0))
    assert "mc_secretcode" not in repr(atoms)


# -- caching ---------------------------------------------------------------------------------


def test_every_signed_in_page_and_api_answer_says_no_store(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app, instructor=True)
    _sign_in(client, token)
    for path in ("/", "/c/after_game", "/instructor", "/instructor/c/after_game", "/lesson", "/nowhere"):
        answer = client.get(path)
        assert answer.headers.get("Cache-Control") == "no-store", path
    api = service_app.test_client()
    for path in ("/api/v1/challenges", "/api/v1/checks/nope"):
        assert api.get(path, headers=bearer(token)).headers.get("Cache-Control") == "no-store", path


# -- malformed input -------------------------------------------------------------------------


def _json_refused(answer: Any) -> dict[str, Any]:
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.get_data(as_text=True)[:300])
    body = answer.get_json()
    assert isinstance(body, dict) and body.get("error"), answer.get_data(as_text=True)[:300]
    return body


MALFORMED_BODIES = [
    pytest.param(b"[" * 100_000 + b"]" * 100_000, id="deep-array"),
    pytest.param(b'{"a":' * 50_000 + b"1" + b"}" * 50_000, id="deep-object"),
    pytest.param(b'{"challenge": "after_game", "source": "\\ud800"}', id="lone-surrogate"),
    pytest.param(
        b'{"challenge": "after_game", "filename": "x\\udfff.py", "source": "x"}', id="lone-low-surrogate"
    ),
    pytest.param(b'{"challenge": "after_game", "source": "x = 1\\u0000"}', id="nul-in-source"),
    pytest.param(b'{"challenge": "after_\\u0000game", "source": "x"}', id="nul-in-challenge"),
    pytest.param(b'{"challenge": "after_game", "source": "x", "n": ' + b"9" * 5000 + b"}", id="huge-integer"),
    pytest.param(b'{"challenge": 1e999999, "source": "x"}', id="huge-float"),
    pytest.param(b'{"challenge": "after_game", "source": "x"', id="truncated"),
    pytest.param(b"\xff\xfe{}", id="not-utf8"),
]


@pytest.mark.parametrize("body", MALFORMED_BODIES)
def test_a_malformed_check_request_is_a_4xx_with_a_json_reason(
    service_app: Any, body: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    _, token = add_user(service_app)
    api = service_app.test_client()
    answer = api.post(
        "/api/v1/checks", data=body, headers={**bearer(token), "Content-Type": "application/json"}
    )
    _json_refused(answer)
    assert "Traceback" not in caplog.text and "\x00" not in caplog.text


def _lesson_page(service_app: Any, address: str = "127.0.0.1") -> tuple[Any, dict[str, str], dict[str, str]]:
    """A browser on the lesson page: its client, the headers its script sends, its address."""
    client = service_app.test_client()
    environ = {"REMOTE_ADDR": address}
    page = client.get("/lesson", environ_base=environ).get_data(as_text=True)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert token
    return client, {"X-CSRFToken": token.group(1)}, environ


@pytest.mark.parametrize("body", MALFORMED_BODIES)
def test_a_malformed_widget_request_is_a_4xx_with_a_json_reason(service_app: Any, body: bytes) -> None:
    client, headers, environ = _lesson_page(service_app)
    answer = client.post(
        "/lesson/api/widget",
        data=body,
        headers={**headers, "Content-Type": "application/json"},
        environ_base=environ,
    )
    assert "CSRF" not in answer.get_data(as_text=True)
    _json_refused(answer)


NUL_URLS = [
    "/api/v1/checks/%00",
    "/api/v1/checks/abc%00def",
    "/api/v1/checks/x?wait=%00",
    "/api/v1/challenges?x=%00",
    "/attempts/%00",
    "/attempts/%00/source",
    "/c/after%00game",
    "/login/mc_%00",
    "/instructor/c/after%00game",
    "/lesson?seed=%00",
]


@pytest.mark.parametrize("url", NUL_URLS)
def test_a_nul_byte_anywhere_in_the_address_is_a_400(service_app: Any, url: str) -> None:
    _, token = add_user(service_app)
    answer = service_app.test_client().get(url, headers=bearer(token))
    assert answer.status_code == 400, (url, answer.get_data(as_text=True)[:300])
    assert "NUL" in answer.get_data(as_text=True)


def test_a_nul_byte_in_a_form_field_is_a_400(service_app: Any, client: Any) -> None:
    page = client.get("/login").get_data(as_text=True)
    answer = client.post("/login", data={"csrf_token": _csrf(page), "token": "mc_\x00"})
    assert answer.status_code == 400 and "NUL" in answer.get_data(as_text=True)


def test_a_failure_logs_the_path_with_newlines_and_nuls_escaped(
    service_app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from menace_course.service.inputs import printable

    assert printable("/x\n2026-12-01 INFO forged line\x00") == "/x\\n2026-12-01 INFO forged line\\x00"
    with caplog.at_level(logging.INFO):
        service_app.test_client().get("/c/a%0aforged%0d%00")
    assert "\nforged" not in caplog.text and "\x00" not in caplog.text


@pytest.mark.parametrize(
    "name",
    [
        "../../x.py",
        "../x.py",
        "a/b.py",
        "/etc/x.py",
        "..\\x.py",
        "C:\\x.py",
        "x.py\n",
        ".x.py",
        "x.py/",
        "x.txt",
    ],
)
def test_a_file_name_that_is_not_plain_is_refused_as_bad_filename(service_app: Any, name: str) -> None:
    _, token = add_user(service_app)
    answer = service_app.test_client().post(
        "/api/v1/checks",
        json={"challenge": "after_game", "filename": name, "source": CORRECT.read_text()},
        headers=bearer(token),
    )
    assert answer.status_code == 400 and answer.get_json()["error"] == "bad_filename", answer.get_json()


# -- who sees what ---------------------------------------------------------------------------


def test_healthz_tells_strangers_only_ok(service_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    anyone = service_app.test_client().get("/healthz")
    assert anyone.get_json() == {"ok": True}
    _, student = add_user(service_app)
    assert service_app.test_client().get("/healthz", headers=bearer(student)).get_json() == {"ok": True}
    _, teacher = add_user(service_app, instructor=True)
    detailed = service_app.test_client().get("/healthz", headers=bearer(teacher)).get_json()
    assert detailed["ok"] and "dispatcher" in detailed and detailed["database"] is True
    configured = replace(service_app.extensions["menace"].config, metrics_token="mc_metrics_secret")
    monkeypatch.setattr(service_app.extensions["menace"], "config", configured)
    monkeypatch.setitem(service_app.config, "MENACE", configured)
    metrics = service_app.test_client().get("/healthz", headers=bearer("mc_metrics_secret")).get_json()
    assert "dispatcher" in metrics
    wrong = service_app.test_client().get("/healthz", headers=bearer("mc_metrics_guess"))
    assert wrong.status_code in (200, 401) and "dispatcher" not in (wrong.get_json() or {})


def test_a_signed_in_user_refused_a_page_sees_their_name_not_sign_in(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app, name="nosy-student")
    _sign_in(client, token)
    refused = client.get("/instructor")
    page = refused.get_data(as_text=True)
    assert refused.status_code == 403
    assert "nosy-student" in page and "Sign out" in page and ">Sign in<" not in page


# -- the lesson page's endpoints ---------------------------------------------------------------


def test_the_widget_refuses_more_games_than_a_widget_plays_in_one_request(service_app: Any) -> None:
    from menace_course.service.lesson.widget import MAX_GAMES

    client, headers, environ = _lesson_page(service_app, "198.51.100.77")
    body = {"seed": 3, "log": [{"type": "games", "count": 1000, "opponent": "random"}] * (MAX_GAMES // 1000)}
    answer = client.post(
        "/lesson/api/widget",
        json={**body, "action": {"type": "games", "count": 1000, "opponent": "random"}},
        headers=headers,
        environ_base=environ,
    )
    assert answer.status_code == 400 and f"at most {MAX_GAMES} games" in answer.get_json()["message"]
    assert MAX_GAMES <= 5000  # about a third of a second of CPU to replay


def test_a_widget_flood_of_fresh_long_logs_is_rate_limited_by_the_games_it_asks_for(service_app: Any) -> None:
    from menace_course.service.lesson.widget import MAX_GAMES

    client, headers, environ = _lesson_page(service_app, "198.51.100.78")
    log = [{"type": "games", "count": 1000, "opponent": "random"}] * (MAX_GAMES // 1000)
    codes = []
    for seed in range(10):  # each a new widget: the server must replay every game of the log
        answer = client.post(
            "/lesson/api/widget",
            json={"seed": 1000 + seed, "log": log},
            headers=headers,
            environ_base=environ,
        )
        codes.append(answer.status_code)
        if answer.status_code == 429:
            assert answer.headers.get("Retry-After") and "too many requests" in answer.get_json()["message"]
    assert codes[0] == 200 and codes[-1] == 429, codes
    assert codes.count(200) * MAX_GAMES <= 20_000
    other, other_headers, other_environ = _lesson_page(service_app, "198.51.100.79")
    elsewhere = other.post(
        "/lesson/api/widget", json={"seed": 1, "log": []}, headers=other_headers, environ_base=other_environ
    )
    assert elsewhere.status_code == 200  # another student's widget is not held to the flooder's limit


def test_one_student_runs_one_lesson_program_at_a_time_and_others_still_run(
    service_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from menace_course.service.lesson import views

    entered, release = threading.Event(), threading.Event()
    calls: list[str] = []

    class Ran:
        def as_json(self) -> dict[str, Any]:
            return {"printed": "ok"}

    def held_run(source: str, sandbox: Any) -> Ran:
        calls.append(source)
        if len(calls) == 1:  # the first program holds its slot until the test lets it go
            entered.set()
            release.wait(timeout=60)
        return Ran()

    monkeypatch.setattr(views, "run_program", held_run)

    def lesson_browser(name: str) -> tuple[Any, dict[str, str]]:
        client = service_app.test_client()
        _, token = add_user(service_app, name=name)
        _sign_in(client, token)
        found = re.search(
            r'name="csrf-token" content="([^"]+)"', client.get("/lesson").get_data(as_text=True)
        )
        assert found
        return client, {"X-CSRFToken": found.group(1)}

    hog, hog_headers = lesson_browser("hog")
    other, other_headers = lesson_browser("patient")
    first: list[Any] = []
    worker = threading.Thread(
        target=lambda: first.append(
            hog.post("/lesson/api/run", json={"step": 1, "source": "a"}, headers=hog_headers)
        )
    )
    worker.start()
    try:
        assert entered.wait(timeout=60)
        second = hog.post("/lesson/api/run", json={"step": 1, "source": "b"}, headers=hog_headers)
        assert second.status_code == 429 and "still running" in second.get_json()["message"]
        assert second.headers["Retry-After"]
        theirs = other.post("/lesson/api/run", json={"step": 1, "source": "c"}, headers=other_headers)
        assert theirs.status_code == 200
    finally:
        release.set()
        worker.join(timeout=60)
    assert first[0].status_code == 200 and calls == ["a", "c"]
    again = hog.post("/lesson/api/run", json={"step": 1, "source": "d"}, headers=hog_headers)
    assert again.status_code == 200  # the slot is the student's again once the first ended


def test_two_students_running_long_programs_do_not_lock_a_third_out_of_the_runner(
    service_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner's two slots, both held by runs longer than 10 s: the third student waits its turn."""
    import threading
    import time

    from menace_course.service.lesson import views

    waited = threading.Event()
    calls: list[str] = []

    class Ran:
        def as_json(self) -> dict[str, Any]:
            return {"printed": "ok"}

    def held_run(source: str, sandbox: Any) -> Ran:
        calls.append(source)
        if source.startswith("hog"):
            waited.wait(timeout=120)  # held until the third has waited longer than the old 10 s
        return Ran()

    monkeypatch.setattr(views, "run_program", held_run)

    def lesson_browser(name: str) -> tuple[Any, dict[str, str]]:
        client = service_app.test_client()
        _, token = add_user(service_app, name=name)
        _sign_in(client, token)
        found = re.search(
            r'name="csrf-token" content="([^"]+)"', client.get("/lesson").get_data(as_text=True)
        )
        assert found
        return client, {"X-CSRFToken": found.group(1)}

    answers: dict[str, Any] = {}

    def post(name: str, browser: tuple[Any, dict[str, str]]) -> None:
        client, headers = browser
        answers[name] = client.post("/lesson/api/run", json={"step": 1, "source": name}, headers=headers)

    browsers = {name: lesson_browser(name) for name in ("hog1", "hog2", "patient")}
    runs = [threading.Thread(target=post, args=(name, browsers[name])) for name in ("hog1", "hog2")]
    for thread in runs:
        thread.start()
    for _ in range(1200):
        if len(calls) == 2:
            break
        time.sleep(0.05)
    assert sorted(calls) == ["hog1", "hog2"]  # both slots are the hogs'
    patient = threading.Thread(target=post, args=("patient", browsers["patient"]))
    patient.start()
    try:
        for _ in range(1200):
            if views.RUNNER.line() == 1:
                break
            time.sleep(0.05)
        time.sleep(10.5)
        assert "patient" not in answers  # still waiting its turn, not refused
    finally:
        waited.set()
        patient.join(timeout=120)
        for thread in runs:
            thread.join(timeout=120)
    assert answers["patient"].status_code == 200, answers["patient"].get_json()
    assert calls[2] == "patient"
