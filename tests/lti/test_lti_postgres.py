"""The LTI flow on PostgreSQL: the migration, the single-use nonce's DELETE, the passback queue.

The other LTI tests run on SQLite; this one repeats the parts that lean on the database
(a launch, its replay refused, a check's score passed back) on a PostgreSQL database of
its own (``MENACE_TEST_POSTGRES_URL``; skipped where unset, required under CI).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from tests.lti.conftest import (
    Browser,
    Service,
    add_activity,
    check_on_page,
    copy_course,
    register,
    scores_of,
    start_service,
    stop_service,
    wait_for,
)
from tests.lti.lms import RunningPlatform, start_platform
from tests.support import REPO

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def pg_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, RunningPlatform]]:
    from tests.service.support import postgres_database

    with postgres_database() as url:
        service = start_service(copy_course(tmp_path_factory.mktemp("pg-course")), db_url=url)
        lms = start_platform(service.url)
        try:
            register(service, lms)
            yield service, lms
        finally:
            lms.stop()
            stop_service(service)


def test_launch_replay_and_passback_on_postgresql(
    pg_world: tuple[Service, RunningPlatform], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="menace.lti")
    service, lms = pg_world
    assert service.db.engine.dialect.name == "postgresql"
    link = add_activity(lms, "after_game")
    browser = Browser()
    form = browser.get(f"{lms.url}/launch", params={"user": "alice", "link": link})
    assert browser.follow_form(form).url == f"{service.url}/c/after_game"
    replay = browser.follow_form(form)
    assert replay.status_code == 403 and "already used" in replay.text
    check_on_page(browser, service, "after_game", (REPO / "reference" / "after_game.py").read_text("utf-8"))
    (post,) = wait_for(lambda: scores_of(lms, "alice", lms.state.links[link].lineitem_id), what="the score")
    assert post.body["scoreGiven"] == post.body["scoreMaximum"] == 15
