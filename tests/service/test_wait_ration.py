"""``?wait=`` is rationed (issue 22): a student holds at most their share of the request threads
waiting, anonymous addresses less, everybody together half; reading a check is rate-limited."""

from __future__ import annotations

import contextlib
from typing import Any

from menace_course.service.dispatch.waits import WaitGate
from tests.service.support import CORRECT, add_user, bearer


def test_a_student_may_wait_as_often_as_they_may_have_checks_waiting_and_no_more() -> None:
    gate = WaitGate(per_student=2, anonymous_total=4, total=10)
    with contextlib.ExitStack() as held:
        granted = [held.enter_context(gate.place("user:1", anonymous=False)) for _ in range(3)]
        assert granted == [True, True, False]
        assert held.enter_context(gate.place("user:2", anonymous=False))  # others still may
    assert gate.held() == 0  # every place is given back
    with gate.place("user:1", anonymous=False) as again:
        assert again


def test_an_anonymous_address_waits_once_and_all_of_them_share_a_few_places() -> None:
    gate = WaitGate(per_student=3, anonymous_total=2, total=10)
    with contextlib.ExitStack() as held:
        assert held.enter_context(gate.place("addr:a", anonymous=True))
        assert not held.enter_context(gate.place("addr:a", anonymous=True))
        assert held.enter_context(gate.place("addr:b", anonymous=True))
        assert not held.enter_context(gate.place("addr:c", anonymous=True))  # the anonymous share is used
        assert held.enter_context(gate.place("user:1", anonymous=False))  # a student is not refused


def test_everybody_together_waits_in_at_most_the_total() -> None:
    gate = WaitGate(per_student=3, anonymous_total=2, total=3)
    with contextlib.ExitStack() as held:
        granted = [held.enter_context(gate.place(f"user:{n}", anonymous=False)) for n in range(5)]
    assert granted == [True, True, True, False, False]


def test_reading_a_check_too_often_gets_429(client: Any, service_app: Any) -> None:
    _, token = add_user(service_app)
    posted = client.post(
        "/api/v1/checks",
        json={"challenge": "after_game", "source": CORRECT.read_text()},
        headers=bearer(token),
    )
    assert posted.status_code == 202
    url = posted.get_json()["url"]
    codes = [client.get(url, headers=bearer(token)).status_code for _ in range(130)]
    assert codes[0] == 200 and codes[-1] == 429
    assert codes.count(200) == 120


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_read_before_a_refused_waits_retry_after_is_refused_and_pushes_the_next_further() -> None:
    from menace_course.service.dispatch.waits import MOST_PENALTY, REFUSED_WAIT_RETRY, Pacer

    clock = _Clock()
    pacer = Pacer(clock)
    assert pacer.too_soon("user:1") is None  # nobody is held back before a refusal
    assert pacer.refused("user:1") == REFUSED_WAIT_RETRY
    assert pacer.too_soon("user:2") is None  # only the one refused
    clock.now += 1
    first = pacer.too_soon("user:1")
    second = pacer.too_soon("user:1")
    assert first is not None and second is not None and REFUSED_WAIT_RETRY < first < second <= MOST_PENALTY
    clock.now += second
    assert pacer.too_soon("user:1") is None  # one who waited as told reads again
    pacer.refused("user:1")
    clock.now += REFUSED_WAIT_RETRY
    assert pacer.too_soon("user:1") is None  # waiting as told costs nothing more


SLOW = "import time\ntime.sleep(4)\n\n\ndef after_game(board):\n    return board\n"


def test_a_refused_wait_says_retry_after_and_polling_sooner_is_a_429_too_soon(
    client: Any, service_app: Any, monkeypatch: Any
) -> None:
    from menace_course.service.dispatch.waits import WaitGate

    monkeypatch.setitem(service_app.extensions, "menace_waits", WaitGate(0, 0, 0))  # every wait refused
    _, token = add_user(service_app)
    posted = client.post(
        "/api/v1/checks?wait=5", json={"challenge": "after_game", "source": SLOW}, headers=bearer(token)
    )
    assert posted.status_code == 202 and posted.headers["Retry-After"] == "2", posted.get_json()
    url = posted.get_json()["url"]
    early = client.get(f"{url}?wait=5", headers=bearer(token))
    assert early.status_code == 429 and early.get_json()["error"] == "too_soon"
    assert int(early.headers["Retry-After"]) > 2  # polling early only made the wait longer
    _, other = add_user(service_app)
    assert client.get("/api/v1/checks/nope", headers=bearer(other)).status_code == 404  # others are not held
