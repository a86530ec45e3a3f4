"""Every refusal of the service answers in one shape (issue 21, item 9).

On the JSON APIs (``/api/v1``, the lesson page's ``/lesson/api``): ``{"error": CODE,
"message": SENTENCE}`` and nothing else, the right status, ``Retry-After`` exactly when
the refusal ends by itself, ``WWW-Authenticate`` on a 401. On a page: the error page.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.service.support import CORRECT, add_user, bearer


def _shape(answer: Any, status: int, code: str, retry_after: bool = False) -> dict[str, Any]:
    body = answer.get_json()
    assert answer.status_code == status, body
    assert isinstance(body, dict) and set(body) == {"error", "message"}, body
    assert body["error"] == code and isinstance(body["message"], str) and body["message"].strip(), body
    assert ("Retry-After" in answer.headers) is retry_after, dict(answer.headers)
    if retry_after:
        assert int(answer.headers["Retry-After"]) >= 1
    return body


def _lesson(service_app: Any) -> tuple[Any, dict[str, str]]:
    client = service_app.test_client()
    _, token = add_user(service_app)
    page = client.get("/login").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert csrf
    assert client.post("/login", data={"csrf_token": csrf.group(1), "token": token}).status_code == 303
    found = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/lesson").get_data(as_text=True))
    assert found
    return client, {"X-CSRFToken": found.group(1)}


REQUESTS = [
    # (what, method, path, json body or raw bytes, status, code)
    ("not JSON", "POST", "/api/v1/checks", b"{", 400, "bad_request"),
    ("not an object", "POST", "/api/v1/checks", [], 400, "bad_request"),
    (
        "no such challenge",
        "POST",
        "/api/v1/checks",
        {"challenge": "nope", "source": "x"},
        400,
        "unknown_challenge",
    ),
    (
        "a folder in the name",
        "POST",
        "/api/v1/checks",
        {"challenge": "after_game", "filename": "../x.py", "source": "x"},
        400,
        "bad_filename",
    ),
    ("no such check", "GET", "/api/v1/checks/nope", None, 404, "not_found"),
    ("no such route", "GET", "/api/v1/nope", None, 404, "not_found"),
    ("a wrong method", "DELETE", "/api/v1/checks", None, 405, "method_not_allowed"),
    ("too large", "POST", "/api/v1/checks", b"x" * (2 * 1024 * 1024), 413, "too_large"),
]


@pytest.mark.parametrize(
    ("what", "method", "path", "body", "status", "code"), REQUESTS, ids=[r[0] for r in REQUESTS]
)
def test_every_api_refusal_is_one_json_shape(
    client: Any, service_app: Any, what: str, method: str, path: str, body: Any, status: int, code: str
) -> None:
    _, token = add_user(service_app)
    options: dict[str, Any] = {"headers": bearer(token)}
    if isinstance(body, bytes):
        options.update(data=body, content_type="application/json")
    elif body is not None:
        options["json"] = body
    _shape(client.open(path, method=method, **options), status, code)


def test_no_credentials_is_a_401_in_the_shape_with_www_authenticate(client: Any) -> None:
    answer = client.post("/api/v1/checks", json={"challenge": "after_game", "source": "x"})
    _shape(answer, 401, "unauthorized")
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")


def _someone_elses_check(client: Any, service_app: Any) -> tuple[str, str]:
    """The address of one student's check, and another student's token."""
    _, mine = add_user(service_app)
    _, theirs = add_user(service_app)
    posted = client.post(
        "/api/v1/checks",
        json={"challenge": "after_game", "source": CORRECT.read_text()},
        headers=bearer(mine),
    )
    return posted.get_json()["url"], theirs


def test_someone_elses_check_is_a_403_in_the_shape(client: Any, service_app: Any) -> None:
    url, theirs = _someone_elses_check(client, service_app)
    _shape(client.get(url, headers=bearer(theirs)), 403, "forbidden")


def test_a_read_too_soon_after_a_refused_wait_is_a_429_with_retry_after(
    client: Any, service_app: Any
) -> None:
    from menace_course.service.dispatch.waits import Pacer

    user_id, token = add_user(service_app)
    pacer = service_app.extensions.setdefault("menace_pacer", Pacer())
    pacer.refused(f"read:user:{user_id}")
    _shape(client.get("/api/v1/checks/nope", headers=bearer(token)), 429, "too_soon", retry_after=True)


def test_a_crash_is_a_500_in_the_shape_and_says_it_is_not_your_mistake(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from menace_course.service import api

    def broken(course: Any) -> Any:
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(api.catalog, "load_all", broken)
    body = _shape(client.get("/api/v1/challenges"), 500, "internal")
    assert "not your mistake" in body["message"] and "bug of ours" not in body["message"]


def test_the_lesson_api_refuses_in_the_same_shape(service_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from menace_course.service.dispatch.fair import FairSlots
    from menace_course.service.lesson import views

    client, headers = _lesson(service_app)
    _shape(client.post("/lesson/api/run", json={"step": 1}, headers=headers), 400, "bad_request")
    _shape(client.post("/lesson/api/widget", json={"seed": -1}, headers=headers), 400, "bad_request")
    monkeypatch.setattr(views, "RUNNER", FairSlots(0, waiting=0))  # no slot, no line
    busy = client.post("/lesson/api/run", json={"step": 1, "source": "print(1)"}, headers=headers)
    _shape(busy, 429, "runner_busy", retry_after=True)
    forged = service_app.test_client().post("/lesson/api/run", json={"step": 1, "source": "print(1)"})
    _shape(forged, 400, "csrf")  # no CSRF token: refused before anything else, in the same shape


def test_a_page_that_is_refused_is_the_error_page_not_json(client: Any) -> None:
    answer = client.get("/no/such/page")
    assert answer.status_code == 404 and answer.mimetype == "text/html"
    assert "Not found" in answer.get_data(as_text=True)


#: The refusals a student meets when checking, and the Chinese they read in them.
IN_CHINESE = [
    ({"challenge": "after_gme", "source": "x"}, "unknown_challenge", "沒有名為 'after_gme' 的題目"),
    (
        {"challenge": "after_game", "filename": "../x.py", "source": "x"},
        "bad_filename",
        "不是以 .py 或 .ipynb",
    ),
]


@pytest.mark.parametrize(("body", "code", "words"), IN_CHINESE, ids=[c for _, c, _ in IN_CHINESE])
def test_a_refusals_message_is_in_the_requests_language_and_its_code_is_the_same(
    client: Any, service_app: Any, body: dict[str, str], code: str, words: str
) -> None:
    # The browser's client and `menace check --server` show `message` as it is; `error` is for programs.
    _, token = add_user(service_app)
    chinese = _shape(
        client.post("/api/v1/checks", json=body, headers={**bearer(token), "Accept-Language": "zh-TW"}),
        400,
        code,
    )
    english = _shape(client.post("/api/v1/checks", json=body, headers=bearer(token)), 400, code)
    assert words in chinese["message"] and re.search(r"[A-Za-z]{3,} [a-z]{3,} [a-z]{3,}", english["message"])
    assert not re.search(r"[a-z]{3,} [a-z]{3,} [a-z]{3,}", chinese["message"]), chinese


def test_a_too_large_request_is_refused_in_the_requests_language(client: Any, service_app: Any) -> None:
    _, token = add_user(service_app)
    headers = {**bearer(token), "Accept-Language": "zh-TW,zh;q=0.9"}
    answer = client.post(
        "/api/v1/checks", data=b"x" * (2 * 1024 * 1024), content_type="application/json", headers=headers
    )
    assert _shape(answer, 413, "too_large")["message"].startswith("請求超過 ")


#: Requests a program got wrong, and the lesson page's refusals: (what, path, JSON body).
MALFORMED = [
    ("a wait that is not a number", "/api/v1/checks?wait=soon", {"challenge": "after_game", "source": "x"}),
    ("a wait too long", "/api/v1/checks?wait=99999", {"challenge": "after_game", "source": "x"}),
    ("a format there is not", "/api/v1/checks?format=pdf", {"challenge": "after_game", "source": "x"}),
    ("a body that is not an object", "/api/v1/checks", [1]),
    ("a body that is not a check request", "/api/v1/checks", {"challenge": 3, "bogus": 1, "filename": None}),
    ("a run that is not a program", "/lesson/api/run", {"step": 1}),
    ("a widget that is not an object", "/lesson/api/widget", [1]),
    ("a seed out of range", "/lesson/api/widget", {"seed": -1}),
    ("settings that are not an object", "/lesson/api/widget", {"seed": 1, "settings": 3}),
    ("a setting there is not", "/lesson/api/widget", {"seed": 1, "settings": {"speed": 1}}),
    ("a reward too large", "/lesson/api/widget", {"seed": 1, "settings": {"reward": [99, 1, -1]}}),
    ("too few starting beads", "/lesson/api/widget", {"seed": 1, "settings": {"start": [1]}}),
    ("symmetry not a truth", "/lesson/api/widget", {"seed": 1, "settings": {"symmetry": 1}}),
    ("a log that is not a list", "/lesson/api/widget", {"seed": 1, "log": 3}),
    ("an action of no kind", "/lesson/api/widget", {"seed": 1, "action": {"type": "chess"}}),
    (
        "an opponent there is not",
        "/lesson/api/widget",
        {"seed": 1, "action": {"type": "games", "opponent": "x"}},
    ),
    (
        "too many games",
        "/lesson/api/widget",
        {"seed": 1, "action": {"type": "games", "opponent": "random", "count": 0}},
    ),
    ("a taken square", "/lesson/api/widget", {"seed": 1, "action": {"type": "human", "moves": [4, 4, 4]}}),
    ("a trained game that is not an object", "/lesson/api/trained", [1]),
    ("a trained game out of range", "/lesson/api/trained", {"game": -1}),
    ("trained moves that are not squares", "/lesson/api/trained", {"game": 1, "moves": [9]}),
    ("a trained move on a taken square", "/lesson/api/trained", {"game": 1, "moves": [0, 0, 0]}),
]


def test_no_english_sentence_is_left_in_a_refusal_of_a_malformed_request_in_chinese(service_app: Any) -> None:
    # The escape test's own detector (tests/student): what is rightly Latin (keys, quoted values) aside.
    from tests.student.test_languages import english_left
    from tests.student.test_nothing_escapes_the_catalog import students_part_removed

    client, csrf = _lesson(service_app)
    left, same = {}, []
    for what, path, body in MALFORMED:
        said = {}
        for language in ("zh-TW", "en"):
            answer = client.post(path, json=body, headers={**csrf, "Accept-Language": language})
            said[language] = _shape(answer, 400, "bad_request")["message"]
        shapes_named = re.sub(r"\{[^{}]*\}", " ", said["zh-TW"])  # {seed, log, action}: the JSON asked for
        found = english_left(students_part_removed(shapes_named))
        if found:
            left[what] = found
        if said["zh-TW"] == said["en"]:
            same.append(what)
    assert left == {} and same == []
    # A request without its CSRF token (a page left open too long): flask-wtf's reason is worded too.
    forged = service_app.test_client().post(
        "/lesson/api/run", json={"step": 1, "source": "print(1)"}, headers={"Accept-Language": "zh-TW"}
    )
    assert (
        _shape(forged, 400, "csrf")["message"] == "表單已過期或是偽造的（缺少 CSRF 權杖。）；請重新載入頁面"
    )
    # ...and the program's own problems the page shows after Run (one that needs no sandbox).
    ran = client.post(
        "/lesson/api/run",
        json={"step": 1, "source": "#" * 60_000},
        headers={**csrf, "Accept-Language": "zh-TW"},
    )
    assert ran.get_json()["problem"] == "程式太長了（最多 50,000 個字元）。"


def test_a_refusal_to_sign_in_is_in_the_requests_language(client: Any, service_app: Any) -> None:
    """What a student is told when a token is wrong, missing or not theirs: worded in Chinese."""
    from tests.student.test_languages import english_left
    from tests.student.test_nothing_escapes_the_catalog import students_part_removed

    url, theirs = _someone_elses_check(client, service_app)
    check = {"challenge": "after_game", "source": "x"}
    asked = {
        "no token": ("POST", "/api/v1/checks", {}, 401, "unauthorized"),
        "a token that is not valid": ("POST", "/api/v1/checks", bearer("mc_nope"), 401, "unauthorized"),
        "not a bearer token": ("POST", "/api/v1/checks", {"Authorization": "Basic x"}, 401, "unauthorized"),
        "someone else's check": ("GET", url, bearer(theirs), 403, "forbidden"),
    }
    left, same = {}, []
    for what, (method, path, headers, status, code) in asked.items():
        said = {}
        for language in ("zh-TW", "en"):
            answer = client.open(
                path, method=method, json=check, headers={**headers, "Accept-Language": language}
            )
            said[language] = _shape(answer, status, code)["message"]
        found = english_left(students_part_removed(said["zh-TW"]))
        if found:
            left[what] = found
        if said["zh-TW"] == said["en"]:
            same.append(what)
    assert left == {} and same == []
