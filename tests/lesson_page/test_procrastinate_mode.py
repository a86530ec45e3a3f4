"""The lesson page's programs with ``menace serve --queue procrastinate``, on real PostgreSQL.

With check workers the service's checks go through the queue; the lesson's programs run in
the web process's own sandboxed children, a few at a time (``programs.CONCURRENT``), so the
page's Run works there exactly as with ``--queue local`` (it answered 503 before).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("menace_course.service.app")

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def queued_service() -> Iterator[Any]:
    from tests.service.support import make_app, postgres_database, stop_app

    with postgres_database() as url:
        app = make_app(url, queue="procrastinate", open=True)
        try:
            yield app
        finally:
            stop_app(app)


def lesson_client(app: Any) -> tuple[Any, str]:
    client = app.test_client()
    page = client.get("/lesson").get_data(as_text=True)
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', page)
    assert found, "the lesson page carries its CSRF token"
    return client, found.group(1)


def test_with_check_workers_the_lesson_programs_run_and_print(queued_service: Any) -> None:
    from menace_course.service.lesson.views import step_source

    assert queued_service.extensions["menace"].config.queue == "procrastinate"
    client, csrf = lesson_client(queued_service)
    answer = client.post(
        "/lesson/api/run", json={"step": 1, "source": "print(6 * 7)"}, headers={"X-CSRFToken": csrf}
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.get_json()["printed"] == "42\n"

    step1 = step_source(1, queued_service.extensions["menace"].course)
    assert step1 is not None
    answer = client.post("/lesson/api/run", json={"step": 1, "source": step1}, headers={"X-CSRFToken": csrf})
    assert answer.status_code == 200
    assert "304" in answer.get_json()["printed"], "Step 1 counts MENACE's 304 boxes"


def test_with_check_workers_a_student_still_runs_one_program_at_a_time(queued_service: Any) -> None:
    """The web process's slots stay bounded: a second program of the same student while the
    first runs is refused at once, with Retry-After, as with the local queue."""
    client, csrf = lesson_client(queued_service)
    slow = {"step": 1, "source": "import time\ntime.sleep(1.5)\nprint('slow done')"}
    answers: list[Any] = []
    first = threading.Thread(
        target=lambda: answers.append(
            client.post("/lesson/api/run", json=slow, headers={"X-CSRFToken": csrf})
        )
    )
    first.start()
    from menace_course.service.lesson import views

    for _ in range(200):  # until the first program holds its slot (bounded: about 10 s at most)
        if views.RUNNER.running():
            break
        threading.Event().wait(0.05)
    other, other_csrf = lesson_client(queued_service)  # another tab, from the same address
    second = other.post(
        "/lesson/api/run", json={"step": 1, "source": "print(1)"}, headers={"X-CSRFToken": other_csrf}
    )
    first.join(timeout=120)
    assert answers and answers[0].status_code == 200 and answers[0].get_json()["printed"] == "slow done\n"
    assert second.status_code == 429, second.get_data(as_text=True)
    assert second.headers["Retry-After"].isdigit()
