"""``/metrics``: Prometheus's text, scraped from a real ``menace serve``, for the metrics token's
holder or an instructor only."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.support import (
    CORRECT,
    METRICS_TOKEN,
    LiveService,
    add_user,
    bearer,
    menace,
    metric_value,
    request,
)

pytestmark = pytest.mark.slow


def test_a_check_moves_the_counters_the_operator_scrapes(live: LiveService, db_url: str) -> None:
    status, before, headers = request(live.url + "/metrics", token=METRICS_TOKEN)
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert metric_value(before, "menace_graders") == 1 and metric_value(before, "menace_queue_depth") == 0
    added = menace("users", "add", "carol", "--db", db_url)
    token = added.stdout.split()[1]
    for _ in range(2):
        status, check, _ = request(
            live.url + "/api/v1/checks?wait=30",
            "POST",
            {"challenge": "after_game", "source": CORRECT.read_text()},
            token,
        )
        assert status == 200 and check["report"]["passed"]
    _, after, _ = request(live.url + "/metrics", token=METRICS_TOKEN)
    passed = {"challenge": "after_game", "outcome": "passed"}
    checked = metric_value(after, "menace_checks_total", **passed)
    assert checked - metric_value(before, "menace_checks_total", **passed) == 2
    assert metric_value(after, "menace_check_seconds_count", challenge="after_game") >= 2
    assert metric_value(after, "menace_graders_busy") == 0 and metric_value(after, "menace_queue_depth") == 0
    assert "menace_passback_failures_total" in after and "menace_passback_retries_total" in after


def test_metrics_need_the_token_or_an_instructor(service_app: Any) -> None:
    client = service_app.test_client()
    nobody = client.get("/metrics")
    assert nobody.status_code == 401 and "menace_checks" not in nobody.get_data(as_text=True)
    _, student = add_user(service_app)
    assert client.get("/metrics", headers=bearer(student)).status_code == 403
    assert client.get("/metrics", headers=bearer("mc_a_guess")).status_code == 403
    _, teacher = add_user(service_app, instructor=True)
    shown = client.get("/metrics", headers=bearer(teacher))
    assert shown.status_code == 200 and "menace_queue_depth" in shown.get_data(as_text=True)


def test_without_a_metrics_token_configured_no_bearer_opens_the_metrics(service_app: Any) -> None:
    assert service_app.extensions["menace"].config.metrics_token == ""
    assert service_app.test_client().get("/metrics", headers=bearer("")).status_code in (401, 403)
