"""Fair share (issue 22): one student, or one address, or many anonymous addresses, cannot
hold every grader, and the limits on waiting checks hold under simultaneous requests.

Nothing here is timed: fairness is asserted by the order in which checks finish, and the
limits by how many of N simultaneous requests were accepted. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import select

from menace_course.service.db.attempts import AdmissionLimits, OverLimit, admit_attempt
from menace_course.service.db.engine import Database
from menace_course.service.db.tables import Attempt, AttemptStatus
from menace_course.service.dispatch.base import ANONYMOUS_LANE, CheckJob
from menace_course.service.dispatch.fair import FairQueue
from tests.service.support import CORRECT, add_user, bearer, make_app, stop_app

#: A correct answer that takes a second to load: checks of it queue up behind one grader.
SLOW = "import time\ntime.sleep(1.0)\n\n" + CORRECT.read_text()


def job(lane: str, number: int) -> CheckJob:
    return CheckJob(f"{lane}-{number}", "after_game", "after_game.py", "", lane)


# -- the queue's order -----------------------------------------------------------------------


def test_a_late_student_is_served_before_a_flooding_students_second_check() -> None:
    line = FairQueue()
    for number in range(1, 4):
        line.put(job("user:alice", number))
    assert line.get() == job("user:alice", 1)  # running now
    line.put(job("user:bob", 1))
    assert [line.get() for _ in range(3)] == [job("user:bob", 1), job("user:alice", 2), job("user:alice", 3)]


def test_with_two_graders_a_signed_in_student_starts_while_the_anonymous_lane_is_full() -> None:
    line = FairQueue(graders=2)
    for number in range(1, 4):
        line.put(job(ANONYMOUS_LANE, number))
    assert line.get() == job(ANONYMOUS_LANE, 1)  # one grader runs an anonymous check
    second: list[CheckJob | None] = []
    grader = threading.Thread(target=lambda: second.append(line.get()))
    grader.start()  # the other grader is kept: it does not take anonymous-2
    line.put(job("user:bob", 1))
    grader.join()
    assert second == [job("user:bob", 1)]  # bob runs now, anonymous-1 still running


def test_anonymous_checks_still_run_when_the_reserved_grader_would_be_idle_otherwise() -> None:
    line = FairQueue(graders=2)
    for number in range(1, 4):
        line.put(job(ANONYMOUS_LANE, number))
    first = line.get()
    assert first == job(ANONYMOUS_LANE, 1)
    line.done(first)  # it ended: the anonymous share is free again, with no student waiting
    assert line.get() == job(ANONYMOUS_LANE, 2)


def test_a_single_grader_still_serves_anonymous_checks_one_after_another() -> None:
    line = FairQueue(graders=1)
    for number in range(1, 3):
        line.put(job(ANONYMOUS_LANE, number))
    for number in range(1, 3):
        running = line.get()
        assert running == job(ANONYMOUS_LANE, number)
        line.done(running)


def test_students_take_turns_and_each_lane_stays_first_in_first_out() -> None:
    line = FairQueue()
    for number in range(1, 4):
        line.put(job("user:alice", number))
        line.put(job("user:bob", number))
    order = [line.get() for _ in range(6)]
    assert [j.attempt_id for j in order if j is not None] == [
        "user:alice-1",
        "user:bob-1",
        "user:alice-2",
        "user:bob-2",
        "user:alice-3",
        "user:bob-3",
    ]


def test_a_lane_that_was_just_served_waits_for_the_others() -> None:
    line = FairQueue()
    line.put(job("user:alice", 1))
    assert line.get() == job("user:alice", 1)
    line.put(job("user:carol", 1))
    line.put(job("user:alice", 2))  # alice again, before carol was served
    line.put(job("user:bob", 1))
    assert [line.get() for _ in range(3)] == [job("user:carol", 1), job("user:bob", 1), job("user:alice", 2)]


def test_a_closed_queue_wakes_its_waiting_graders() -> None:
    line = FairQueue()
    got: list[CheckJob | None] = []
    waiter = threading.Thread(target=lambda: got.append(line.get()))
    waiter.start()
    line.close()
    waiter.join(timeout=30)
    assert got == [None]


# -- admission: counted and stored in one transaction ------------------------------------------


@pytest.fixture
def database(db_url: str) -> Iterator[Database]:
    db = Database(db_url)
    db.upgrade()
    try:
        yield db
    finally:
        db.dispose()


def _context_and_user(db: Database) -> tuple[int, int]:
    from menace_course.service.db.people import add_local_user, context_for
    from menace_course.service.db.tables import Role

    with db.writing() as session:
        user, _ = add_local_user(session, "racer", Role.LEARNER)
        return context_for(session).id, user.id


def _race(db: Database, count: int, admit: Any) -> list[bool]:
    """``count`` admissions at once (all released by one barrier); which were accepted."""
    barrier = threading.Barrier(count)

    def one(_: int) -> bool:
        barrier.wait(timeout=60)
        try:
            with db.writing() as session:
                admit(session)
        except OverLimit:
            return False
        return True

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(one, range(count)))


def test_20_simultaneous_admissions_of_one_student_accept_exactly_the_limit_of_3(database: Database) -> None:
    context_id, user_id = _context_and_user(database)

    def admit(session: Any) -> None:
        admit_attempt(
            session,
            lane=f"user:{user_id}",
            limits=AdmissionLimits(per_lane=3, queue=100),
            context_id=context_id,
            user_id=user_id,
            challenge="after_game",
            filename="after_game.py",
            source="pass",
        )

    accepted = _race(database, 20, admit)
    assert accepted.count(True) == 3
    with database.reading() as session:
        assert len(session.scalars(select(Attempt)).all()) == 3  # the refused left nothing behind


def test_the_queue_limit_holds_under_simultaneous_admissions_of_many_lanes(database: Database) -> None:
    context_id, _ = _context_and_user(database)
    lanes = iter(range(1000))
    lock = threading.Lock()

    def admit(session: Any) -> None:
        with lock:
            lane = next(lanes)
        admit_attempt(
            session,
            lane=f"addr:{lane}",
            limits=AdmissionLimits(per_lane=3, queue=5, shared=100),
            context_id=context_id,
            user_id=None,
            challenge="after_game",
            filename="after_game.py",
            source="pass",
        )

    assert _race(database, 16, admit).count(True) == 5


def test_an_admission_says_how_many_of_its_lane_wait_before_it(database: Database) -> None:
    context_id, user_id = _context_and_user(database)
    aheads = []
    for _ in range(3):
        with database.writing() as session:
            admitted = admit_attempt(
                session,
                lane=f"user:{user_id}",
                limits=AdmissionLimits(per_lane=3, queue=100),
                context_id=context_id,
                user_id=user_id,
                challenge="after_game",
                filename="after_game.py",
                source="pass",
            )
            aheads.append(admitted.ahead)
    assert aheads == [0, 1, 2]


# -- the service: the order checks finish in ---------------------------------------------------


def _finished_order(app: Any) -> list[str]:
    with app.extensions["menace"].db.reading() as session:
        done = session.scalars(
            select(Attempt).where(Attempt.status == AttemptStatus.DONE).order_by(Attempt.finished_at)
        ).all()
        return [a.id for a in done]


def _post(client: Any, source: str, headers: dict[str, str] | None = None, address: str = "127.0.0.1") -> Any:
    return client.post(
        "/api/v1/checks",
        json={"challenge": "after_game", "source": source},
        headers=headers or {},
        environ_base={"REMOTE_ADDR": address},
    )


def _wait_all(app: Any, ids: list[str]) -> None:
    for attempt_id in ids:
        app.extensions["menace"].dispatcher.wait(attempt_id, 60)


def test_a_students_check_finishes_before_a_flooding_students_queued_ones(db_url: str) -> None:
    app = make_app(db_url, workers=1, per_user_queued=3, rate_limit="1000 per minute")
    try:
        client = app.test_client()
        _, flooder = add_user(app)
        _, victim = add_user(app)
        flood = [_post(client, SLOW, bearer(flooder)) for _ in range(3)]
        assert [r.status_code for r in flood] == [202, 202, 202]
        assert _post(client, SLOW, bearer(flooder)).status_code == 429  # the limit of 3
        mine = _post(client, CORRECT.read_text(), bearer(victim))
        assert mine.status_code == 202
        flood_ids = [r.get_json()["id"] for r in flood]
        _wait_all(app, [*flood_ids, mine.get_json()["id"]])
        order = _finished_order(app)
        # At most one of the flood's checks (the one running when the victim came) goes first.
        assert order.index(mine.get_json()["id"]) <= 1, order
    finally:
        stop_app(app)


def test_anonymous_addresses_share_one_lane_and_each_has_its_own_limit(db_url: str) -> None:
    app = make_app(
        db_url, workers=1, open=True, per_user_queued=2, open_queue=4, rate_limit="1000 per minute"
    )
    try:
        client = app.test_client()
        _, victim = add_user(app)
        first = [_post(client, SLOW, address="10.0.0.1") for _ in range(2)]
        assert [r.status_code for r in first] == [202, 202]
        third = _post(client, SLOW, address="10.0.0.1")
        assert third.status_code == 429 and third.get_json()["error"] == "too_many_waiting"
        others = [_post(client, SLOW, address=f"10.0.1.{n}") for n in range(2)]
        assert [r.status_code for r in others] == [202, 202]
        over = _post(client, SLOW, address="10.0.2.1")  # a fifth anonymous check: the shared lane is full
        assert over.status_code == 429 and over.get_json()["error"] == "queue_full"
        mine = _post(client, CORRECT.read_text(), bearer(victim))
        assert mine.status_code == 202  # a signed-in student still gets in
        anonymous = [r.get_json()["id"] for r in [*first, *others]]
        _wait_all(app, [*anonymous, mine.get_json()["id"]])
        order = _finished_order(app)
        assert order.index(mine.get_json()["id"]) <= 1, order  # four addresses, yet one lane's turn
    finally:
        stop_app(app)


def test_an_anonymous_check_waits_in_the_anonymous_lane() -> None:
    class Stored:
        id, challenge, filename, source, user_id, request_id = "a", "after_game", "a.py", "", None, None

    assert CheckJob.of(Stored()).lane == ANONYMOUS_LANE  # type: ignore[arg-type]


def test_a_freed_runner_slot_goes_to_the_one_waiting_not_to_whoever_asks_again_first() -> None:
    import threading

    from menace_course.service.dispatch.fair import FairSlots

    slots = FairSlots(2, waiting=4)
    assert slots.take("a", 1) == "taken" and slots.take("b", 1) == "taken"
    assert slots.take("a", 1) == "yours"  # one run each
    got: list[str] = []
    waiter = threading.Thread(target=lambda: got.append(slots.take("c", 60)))
    waiter.start()
    for _ in range(600):
        if slots.line():
            break
        threading.Event().wait(0.05)
    assert slots.line() == 1
    slots.give_back("a")
    # "a" asks again the moment its run ended: the slot was already handed to "c".
    assert slots.take("a", 0) == "full"
    waiter.join(timeout=60)
    assert got == ["taken"]


def test_the_runner_serves_the_owner_served_least_recently_first_and_its_line_is_bounded() -> None:
    import threading

    from menace_course.service.dispatch.fair import FairSlots

    slots = FairSlots(1, waiting=2)
    assert slots.take("a", 1) == "taken"
    slots.give_back("a")
    assert slots.take("b", 1) == "taken"
    order: list[str] = []
    threads = []
    for owner in ("a", "c"):  # "a" arrives first but was served before; "c" never was
        thread = threading.Thread(
            target=lambda o=owner: (slots.take(o, 60), order.append(o), slots.give_back(o))
        )
        thread.start()
        threads.append(thread)
        for _ in range(600):
            if slots.line() == len(threads):
                break
            threading.Event().wait(0.05)
    assert slots.take("d", 1) == "full"  # the line holds 2: a third is refused at once
    slots.give_back("b")
    for thread in threads:
        thread.join(timeout=60)
    assert order == ["c", "a"]
