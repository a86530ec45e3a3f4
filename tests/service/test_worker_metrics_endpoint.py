"""A worker's ``--metrics-port`` endpoint (:mod:`menace_course.service.metrics_server`): Prometheus's
text for the token's holder, refused to anyone else, and nothing but ``/metrics``."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from menace_course.errors import UsageError
from menace_course.service.addresses import is_loopback
from menace_course.service.metrics import CHECKS
from menace_course.service.metrics_server import MetricsServer
from tests.service.support import request


class Facts:
    """What a worker's runtime says at a scrape (the gauges' source)."""

    def health(self) -> dict[str, Any]:
        return {"workers": 3, "running": 2, "queued": 7}


@pytest.fixture
def guarded() -> Iterator[MetricsServer]:
    server = MetricsServer(Facts(), "127.0.0.1", 0, "mc_worker_secret").start()
    try:
        yield server
    finally:
        server.stop()


def test_the_token_s_holder_reads_the_worker_s_counters_and_gauges(guarded: MetricsServer) -> None:
    CHECKS.labels(challenge="endpoint_test", outcome="passed").inc()
    status, text, headers = request(guarded.address, token="mc_worker_secret")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert 'menace_checks_total{challenge="endpoint_test",outcome="passed"}' in text
    assert "menace_graders 3.0" in text and "menace_graders_busy 2.0" in text
    assert "menace_queue_depth 7.0" in text


def test_without_the_token_the_metrics_are_refused(guarded: MetricsServer) -> None:
    status, text, headers = request(guarded.address)
    assert status == 401 and "Bearer" in headers["WWW-Authenticate"] and "menace_" not in text
    status, text, _ = request(guarded.address, token="mc_worker_secreT")
    assert status == 403 and "menace_" not in text


def test_only_get_metrics_is_answered(guarded: MetricsServer) -> None:
    root = guarded.address.removesuffix("/metrics")
    assert request(root + "/", token="mc_worker_secret")[0] == 404
    assert request(root + "/metrics/../healthz", token="mc_worker_secret")[0] == 404
    assert request(guarded.address, "POST", {"x": 1}, token="mc_worker_secret")[0] == 405


def test_with_no_token_set_anyone_who_can_connect_reads_them() -> None:
    server = MetricsServer(Facts(), "127.0.0.1", 0, "").start()
    try:
        status, text, _ = request(server.address)
    finally:
        server.stop()
    assert status == 200 and "menace_graders 3.0" in text


def test_a_port_in_use_is_one_clear_usage_error() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        with pytest.raises(UsageError, match=rf"cannot listen on 127\.0\.0\.1 port {port} for the metrics"):
            MetricsServer(Facts(), "127.0.0.1", port, "")


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("0.0.0.0", False), ("10.0.0.5", False)],
)
def test_which_addresses_count_as_the_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


class Unreachable:
    """A worker whose queue could not be read at this scrape."""

    def health(self) -> dict[str, Any]:
        return {"workers": 1, "running": 0, "queued": None}


def test_a_queue_depth_that_cannot_be_read_is_left_out_not_shown_as_zero() -> None:
    server = MetricsServer(Unreachable(), "127.0.0.1", 0, "").start()
    try:
        status, text, _ = request(server.address)
    finally:
        server.stop()
    assert status == 200 and "menace_graders 1.0" in text and "menace_queue_depth" not in text
