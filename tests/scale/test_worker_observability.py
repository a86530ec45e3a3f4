"""What an operator sees of a ``menace worker``: its own Prometheus metrics at ``--metrics-port``
(behind the metrics token), and JSON log lines that carry the id of the request that made each check."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from menace_course.service.db.engine import Database
from menace_course.service.db.tables import Attempt
from tests.scale.support import SLOW, post, serve, until, worker
from tests.service.support import CORRECT, METRICS_TOKEN, menace, metric_value, request, sandbox_kind

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_a_worker_serves_its_checks_latency_and_busy_graders_behind_the_token(
    tmp_path: Path, pg_url: str
) -> None:
    web, url = serve(tmp_path, pg_url)
    port = _free_port()
    runner = worker(tmp_path, pg_url, "runner", 1, "--metrics-port", str(port))
    metrics = f"http://127.0.0.1:{port}/metrics"
    try:
        assert f"metrics at {metrics} (token required)" in runner.logs()
        assert request(metrics)[0] == 401 and request(metrics, token="mc_not_it")[0] == 403
        token = menace("users", "add", "erin", "--db", pg_url).stdout.split()[1]
        code, body, _ = post(url, token, CORRECT.read_text(), wait=60)
        assert code == 200 and body["report"]["passed"], body

        code, text, _ = request(metrics, token=METRICS_TOKEN)
        assert code == 200
        assert metric_value(text, "menace_checks_total", challenge="after_game", outcome="passed") == 1
        assert metric_value(text, "menace_check_seconds_count", challenge="after_game") == 1
        assert metric_value(text, "menace_graders") == 1 and metric_value(text, "menace_graders_busy") == 0
        assert "menace_passback_retries_total 0.0" in text  # passbacks run on the worker too

        code, _, _ = post(url, token, SLOW + "\n# busy\n")
        assert code == 202
        until(
            lambda: metric_value(request(metrics, token=METRICS_TOKEN)[1], "menace_graders_busy") == 1,
            60,
            what="the grader busy with the slow check",
        )
        until(
            lambda: (
                metric_value(
                    request(metrics, token=METRICS_TOKEN)[1],
                    "menace_checks_total",
                    challenge="after_game",
                    outcome="passed",
                )
                == 2
            ),
            120,
            what="the slow check counted",
        )
    finally:
        runner.stop()
        web.stop()


def test_the_worker_s_log_lines_for_a_check_carry_the_id_of_the_request_that_made_it(
    tmp_path: Path, pg_url: str
) -> None:
    web, url = serve(tmp_path, pg_url)
    runner = worker(tmp_path, pg_url, "runner", 1, "--log-format", "json")
    try:
        token = menace("users", "add", "fay", "--db", pg_url).stdout.split()[1]
        code, body, headers = post(url, token, CORRECT.read_text(), wait=60)
        assert code == 200 and body["report"]["passed"], body
        made_by, attempt_id = headers["X-Request-Id"], body["id"]
        until(lambda: attempt_id in runner.err.read_text(), 30, what="the worker's line for the check")
    finally:
        runner.stop()
        web.stop()
    lines = [json.loads(ln) for ln in runner.err.read_text().splitlines() if ln.startswith("{")]
    about = [line for line in lines if attempt_id in line["message"]]
    assert about and all(line["request_id"] == made_by for line in about), about
    db = Database(pg_url)  # the attempt keeps it too, for a job queued again later (test_queue)
    try:
        with db.reading() as session:
            stored = session.get(Attempt, attempt_id)
            assert stored is not None and stored.request_id == made_by
    finally:
        db.dispose()
    assert not [ln for ln in runner.err.read_text().splitlines() if ln and not ln.startswith("{")]


def test_a_worker_whose_metrics_port_is_taken_says_so_in_one_line(tmp_path: Path, pg_url: str) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        sandbox = ["--sandbox", "process", "--i-accept-no-sandbox"] if sandbox_kind() == "process" else []
        done = menace("worker", "--db", pg_url, "--metrics-port", str(port), "--concurrency", "1", *sandbox)
    assert done.returncode == 2, done
    assert f"cannot listen on 127.0.0.1 port {port} for the metrics" in done.stderr
    assert "Traceback" not in done.stderr
