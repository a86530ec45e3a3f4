"""Prometheus metrics of the service, at ``/metrics`` for an instructor or the metrics token's holder.

What is counted, and where::

    menace_checks_total{challenge, outcome}   checks recorded: passed, failed, or a status } counted by the
    menace_check_seconds{challenge}           a check's time, grader start to report      } recorder
    menace_passback_retries_total             LMS score passbacks tried again (after a failed try)
    menace_passback_failures_total            passback tries that failed (each is tried again later)
    menace_queue_depth                        checks accepted and not yet finished      } asked of the
    menace_graders / menace_graders_busy      grader processes alive / checking now     } dispatcher

The counters are counted where the event happens: with the local queue, every check is
recorded in the web process, so ``/metrics`` counts them all; with ``--queue
procrastinate`` checks are recorded in the ``menace worker`` processes, and the web
process's ``menace_checks_total`` counts none (the queue's gauges, read from PostgreSQL at
each scrape, count every worker's); each worker serves its own counters and its graders'
gauges with ``--metrics-port`` (:mod:`.metrics_server`). The gauges are read from the
dispatcher when scraped.

``menace serve`` runs one or more web processes under gunicorn. It sets
``PROMETHEUS_MULTIPROC_DIR`` (:func:`~menace_course.service.server.share_metrics`) before
they start, and before this module is first imported, so
prometheus_client keeps each process's counters in files there and any web process that
answers a scrape adds up all of them (its multiprocess mode); a web process that ends is
marked dead by the arbiter and its counts stay in the sums.
"""

from __future__ import annotations

import hmac
import os
import time
from typing import Any, Protocol

from flask import Flask, Response, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from menace_course.models import Status, SubmissionReport
from menace_course.service.dispatch.base import Recorder

#: The environment variable prometheus_client's multiprocess mode reads (at import).
MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"

CHECKS = Counter(
    "menace_checks",
    "Checks recorded, by challenge and outcome (passed, failed, or why no test ran: syntax_error, ...).",
    ["challenge", "outcome"],
)
CHECK_SECONDS = Histogram(
    "menace_check_seconds",
    "Seconds from a grader starting a check to its report.",
    ["challenge"],
    buckets=(0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120),
)
PASSBACK_RETRIES = Counter("menace_passback_retries", "LMS score passbacks tried again after a failed try.")
PASSBACK_FAILURES = Counter(
    "menace_passback_failures", "LMS score passback tries that failed (each is tried again)."
)


def outcome_of(report: SubmissionReport) -> str:
    """A check's outcome label: ``passed`` or ``failed`` when its tests ran, else its status."""
    if report.status is Status.CHECKED:
        return "passed" if report.passed else "failed"
    return report.status.value


class CountingRecorder:
    """A :class:`~.dispatch.base.Recorder` that counts each check it records, then passes it on."""

    def __init__(self, recorder: Recorder) -> None:
        """Count what ``recorder`` records."""
        self.recorder = recorder
        self._began: dict[str, float] = {}

    def started(self, attempt_id: str) -> bool:
        """The attempt started (its time is taken from here)."""
        starting = self.recorder.started(attempt_id)
        if starting:
            self._began[attempt_id] = time.monotonic()
        return starting

    def finished(self, attempt_id: str, report: SubmissionReport) -> bool:
        """The attempt's report: counted once, when this call records it."""
        recorded = self.recorder.finished(attempt_id, report)
        began = self._began.pop(attempt_id, None)
        if recorded:
            challenge = report.challenge[:100]
            CHECKS.labels(challenge=challenge, outcome=outcome_of(report)).inc()
            if began is not None:
                CHECK_SECONDS.labels(challenge=challenge).observe(time.monotonic() - began)
        return recorded


class Healthy(Protocol):
    """What :class:`DispatcherGauges` reads: a :class:`~.dispatch.base.Dispatcher`, or a worker's runtime."""

    def health(self) -> dict[str, Any]:
        """At least ``workers`` and ``queued``; ``running`` when it is known."""
        ...


class DispatcherGauges(Collector):
    """The queue's depth and the graders, asked of the dispatcher at each scrape."""

    def __init__(self, dispatcher: Healthy) -> None:
        """Read ``dispatcher``."""
        self.dispatcher = dispatcher

    def collect(self) -> Any:
        """Three gauges, from its ``health()`` (the depth only when it is known)."""
        facts = self.dispatcher.health()
        known = facts.get("queued")  # None: could not be read now (the gauge is left out)
        queued = int(known or 0)
        graders = int(facts.get("workers", 0))
        running = facts.get("running")
        busy = int(running) if running is not None else min(queued, graders)
        if known is not None:
            yield GaugeMetricFamily(
                "menace_queue_depth", "Checks accepted and not yet finished.", value=queued
            )
        yield GaugeMetricFamily(
            "menace_graders", "Grader processes alive (procrastinate: workers alive).", value=graders
        )
        yield GaugeMetricFamily("menace_graders_busy", "Checks running now.", value=busy)


def bearer_matches(header: str, token: str) -> bool:
    """Whether an ``Authorization`` header is ``Bearer <token>`` (never, for an empty token)."""
    scheme, _, given = header.partition(" ")
    if not token or scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


def may_read(token: str) -> bool:
    """An instructor (session or token), or ``Authorization: Bearer <metrics token>``."""
    from menace_course.service.auth import AuthError, who

    if bearer_matches(request.headers.get("Authorization", ""), token):
        return True
    try:
        return who().is_instructor
    except AuthError:
        return False


def scrape(dispatcher: Healthy) -> bytes:
    """The metrics text: this process's counters (every process's, in multiprocess mode), then the gauges."""
    registry = CollectorRegistry()
    if os.environ.get(MULTIPROCESS_DIR):
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry.register(_Everything())
    registry.register(DispatcherGauges(dispatcher))
    return generate_latest(registry)


class _Everything(Collector):
    """This process's own metrics (one process, no multiprocess folder: tests' apps)."""

    def collect(self) -> Any:
        """What the default registry holds."""
        yield from REGISTRY.collect()


def register(app: Flask) -> None:
    """Add ``/metrics`` to the app: 401 without credentials, 403 with the wrong ones."""
    from menace_course.service.state import state

    def metrics() -> Response:
        service = state()
        if not may_read(service.config.metrics_token):
            from menace_course.service.auth import AuthError

            anonymous = app.config["SESSION_COOKIE_NAME"] not in request.cookies
            if anonymous and "Authorization" not in request.headers:
                raise AuthError(401, "send 'Authorization: Bearer <metrics token>', or sign in as instructor")
            raise AuthError(403, "only an instructor or the metrics token may read the metrics")
        return Response(scrape(service.dispatcher), content_type=CONTENT_TYPE_LATEST)

    app.add_url_rule("/metrics", "metrics", metrics, methods=["GET"])
