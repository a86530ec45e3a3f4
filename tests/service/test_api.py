"""The JSON API: a check stored, queued, run in the sandbox and answered as ``menace check`` would."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import check_json
from tests.service.support import BUGGY, CORRECT, add_user, bearer, without_timing


def _post(client: Any, token: str, body: dict[str, Any], query: str = "?wait=30") -> Any:
    return client.post(f"/api/v1/checks{query}", json=body, headers=bearer(token))


def test_a_check_reports_exactly_what_menace_check_json_prints(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app)
    answer = _post(
        client, token, {"challenge": "after_game", "filename": BUGGY.name, "source": BUGGY.read_text()}
    )
    assert answer.status_code == 200, answer.get_json()
    check = answer.get_json()
    assert check["status"] == "done"
    code, local = check_json(BUGGY, "--challenge", "after_game")
    assert code == 1
    assert without_timing(check["report"]) == without_timing(local)
    hidden = [t for t in check["report"]["tests"] if t["kind"] != "example"]
    assert any(
        t["name"] == "loss_on_an_empty_colour_stays_at_zero" and t["outcome"] == "failed" for t in hidden
    )
    assert check["report"]["hidden_not_run"] == []


def test_a_check_is_acknowledged_at_once_and_read_back_when_done(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app)
    accepted = _post(client, token, {"challenge": "after_game", "source": CORRECT.read_text()}, query="")
    assert accepted.status_code == 202
    body = accepted.get_json()
    assert set(body) == {"id", "status", "url"}
    assert body["status"] in ("queued", "running", "done")
    assert accepted.headers["Location"] == body["url"] == f"/api/v1/checks/{body['id']}"
    done = client.get(body["url"] + "?wait=30", headers=bearer(token)).get_json()
    assert done["status"] == "done"
    assert done["report"]["passed"] is True
    assert done["report"]["file"] == "after_game.py"


def test_feedback_in_words_is_what_menace_check_prints(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app)
    check = _post(
        client,
        token,
        {"challenge": "after_game", "filename": BUGGY.name, "source": BUGGY.read_text()},
        query="?wait=30&format=html",
    ).get_json()
    from tests.service.support import menace

    local = menace("check", str(BUGGY), "--format", "html")
    assert check["feedback"] == local.stdout


def test_a_notebook_is_accepted_as_its_json(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app)
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": "# My answer", "metadata": {}},
            {
                "cell_type": "code",
                "source": CORRECT.read_text(),
                "metadata": {},
                "outputs": [],
                "execution_count": None,
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    check = _post(client, token, {"challenge": "after_game", "source": json.dumps(notebook)}).get_json()
    assert check["filename"] == "after_game.ipynb"
    assert check["report"]["passed"] is True


def test_an_unknown_challenge_is_400_with_a_suggestion(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app)
    answer = _post(client, token, {"challenge": "after_gme", "source": "x = 1\n"})
    assert answer.status_code == 400
    body = answer.get_json()
    assert body["error"] == "unknown_challenge"
    assert body["message"].startswith("no challenge named 'after_gme'; did you mean 'after_game'")


def test_malformed_requests_are_400_with_a_reason(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app)
    missing = _post(client, token, {"challenge": "after_game"})
    assert missing.status_code == 400 and "source" in missing.get_json()["message"]
    extra = _post(client, token, {"challenge": "after_game", "source": "", "grade": 100})
    assert extra.status_code == 400 and "grade" in extra.get_json()["message"]
    not_json = client.post("/api/v1/checks", data="hello", headers=bearer(token))
    assert not_json.status_code == 400 and not_json.get_json()["error"] == "bad_request"
    bad_name = _post(client, token, {"challenge": "after_game", "filename": "../../etc/passwd", "source": ""})
    assert bad_name.status_code == 400 and bad_name.get_json()["error"] == "bad_filename"
    bad_wait = _post(client, token, {"challenge": "after_game", "source": ""}, query="?wait=soon")
    assert bad_wait.status_code == 400


def test_a_submission_over_the_size_limit_is_413(service_app: Any, client: Any) -> None:
    _, token = add_user(service_app)
    big = "# " + "x" * (600 * 1024) + "\n"
    answer = _post(client, token, {"challenge": "after_game", "source": big})
    assert answer.status_code == 413
    assert answer.get_json()["error"] == "too_large"
    huge = client.post(
        "/api/v1/checks",
        data=b"{" + b" " * (2 * 1024 * 1024) + b"}",
        headers={**bearer(token), "Content-Type": "application/json"},
    )
    assert huge.status_code == 413
    assert huge.get_json()["error"] == "too_large"


def test_without_a_token_a_check_is_401_and_with_a_bad_one_too(client: Any) -> None:
    body = {"challenge": "after_game", "source": ""}
    none = client.post("/api/v1/checks", json=body)
    assert none.status_code == 401 and none.get_json()["error"] == "unauthorized"
    assert none.headers["WWW-Authenticate"].startswith("Bearer")
    wrong = client.post("/api/v1/checks", json=body, headers=bearer("mc_not-a-real-token"))
    assert wrong.status_code == 401
    scheme = client.post("/api/v1/checks", json=body, headers={"Authorization": "Basic abc"})
    assert scheme.status_code == 401


def test_a_student_cannot_read_another_students_check_but_an_instructor_can(
    service_app: Any, client: Any
) -> None:
    _, alice = add_user(service_app)
    _, bob = add_user(service_app)
    _, teacher = add_user(service_app, instructor=True)
    check = _post(client, alice, {"challenge": "after_game", "source": CORRECT.read_text()}).get_json()
    assert client.get(check["url"], headers=bearer(bob)).status_code == 403
    assert client.get(check["url"]).status_code == 401
    assert client.get(check["url"], headers=bearer(teacher)).get_json()["report"]["passed"] is True
    assert client.get("/api/v1/checks/no-such-id", headers=bearer(alice)).status_code == 404


def test_the_challenges_are_listed(client: Any) -> None:
    listed = client.get("/api/v1/challenges").get_json()["challenges"]
    assert {c["slug"] for c in listed} >= {"after_game", "count_boxes"}
    after_game = next(c for c in listed if c["slug"] == "after_game")
    assert after_game["function"] == "after_game" and after_game["url"] == "/c/after_game"


def test_the_openapi_document_is_built_from_the_routes_and_schemas(client: Any) -> None:
    document = client.get("/api/v1/openapi.json").get_json()
    assert document["openapi"] == "3.1.0"
    assert set(document["paths"]) == {"/api/v1/checks", "/api/v1/checks/{attempt_id}", "/api/v1/challenges"}
    post = document["paths"]["/api/v1/checks"]["post"]
    assert set(post["responses"]) >= {"200", "202", "400", "401", "413", "429"}
    schemas = document["components"]["schemas"]
    assert set(schemas["CheckRequest"]["required"]) == {"challenge", "source"}
    report = schemas["Report"]["properties"]
    assert report["status"]["enum"][:2] == ["checked", "unreadable"]
    assert report["tests"]["items"] == {"$ref": "#/components/schemas/TestResult"}
    assert "hint" in schemas["TestResult"]["properties"]
    refs = {m for m in json.dumps(document).split('"') if m.startswith("#/components/schemas/")}
    assert {r.rsplit("/", 1)[1] for r in refs} <= set(schemas)


def test_every_error_is_json_with_a_message(client: Any) -> None:
    for answer in (client.get("/api/v1/nowhere"), client.delete("/api/v1/checks")):
        body = answer.get_json()
        assert answer.status_code in (404, 405)
        assert set(body) == {"error", "message"}
