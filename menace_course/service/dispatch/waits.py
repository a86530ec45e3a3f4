"""Who may hold a request thread waiting for a check (``?wait=``): :class:`WaitGate`.

A request that waits for its check holds one of the web process's request threads until
the check is done or the wait runs out. So waiting is rationed: each student may have as
many waiting requests as they may have checks waiting (``--per-student``), one anonymous
address one, all anonymous addresses together a quarter of the threads, and everybody
together all but :func:`reserved` of them, which always answer pages, ``/healthz`` and new
checks. A request past its ration is answered at once, with the check as it is now
(``queued`` or ``running``) and ``Retry-After: 2`` (:data:`REFUSED_WAIT_RETRY`): the client
must leave that long before it reads the check again. :class:`Pacer` holds it to that: a
read before then is refused (429 ``too_soon``) and pushes the next allowed read twice as
far (up to :data:`MOST_PENALTY` seconds), so polling fast past a refused wait only costs
the poller. The rate limit on reading checks (:data:`POLL_LIMIT`) bounds the rest.

The same pacer keeps new checks to the ``Retry-After`` of a refused one (a full queue, too
many of yours waiting): a check sent sooner is refused from memory, before the database is
touched. Under a flood of 50 addresses retrying at once, that is what keeps the
database's write lock free for everyone else's checks (``bench/bench_abuse.py``).
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator

from flask import current_app

#: Reads of a check (``GET /api/v1/checks/<id>``) per student, or per address when anonymous.
POLL_LIMIT = "120 per minute"
#: Seconds a client whose wait was refused must leave before it reads a check again.
REFUSED_WAIT_RETRY = 2
#: The furthest an early read pushes the next allowed one, in seconds.
MOST_PENALTY = 30
#: People whose next allowed read is remembered; past it, those whose time came are forgotten.
REMEMBERED = 10_000


class WaitGate:
    """Counts the waiting requests per person and in all; hands out places (see the module's docstring)."""

    def __init__(self, per_student: int, anonymous_total: int, total: int) -> None:
        """At most ``per_student`` waits per signed-in student (1 per anonymous address), in all ``total``."""
        self.per_student = per_student
        self.anonymous_total = anonymous_total
        self.total = total
        self._lock = threading.Lock()
        self._held: Counter[str] = Counter()
        self._anonymous = 0

    @contextlib.contextmanager
    def place(self, who: str, anonymous: bool) -> Iterator[bool]:
        """True (and a place held until the block ends) if ``who`` may wait now, else False."""
        with self._lock:
            allowed = (
                sum(self._held.values()) < self.total
                and self._held[who] < (1 if anonymous else self.per_student)
                and (not anonymous or self._anonymous < self.anonymous_total)
            )
            if allowed:
                self._held[who] += 1
                self._anonymous += anonymous
        try:
            yield allowed
        finally:
            if allowed:
                with self._lock:
                    self._held[who] -= 1
                    if not self._held[who]:
                        del self._held[who]
                    self._anonymous -= anonymous

    def held(self) -> int:
        """Requests waiting now."""
        with self._lock:
            return sum(self._held.values())


class Pacer:
    """When each person may read a check again after a refused wait (see the module's docstring)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        """Nobody is held back yet."""
        self._clock = clock
        self._lock = threading.Lock()
        self._after: dict[str, tuple[float, float]] = {}  #: who -> (not before, the next penalty)

    def refused(self, who: str, seconds: int = REFUSED_WAIT_RETRY) -> int:
        """``who`` was told to come back in ``seconds`` (Retry-After); returns ``seconds``."""
        now = self._clock()
        with self._lock:
            if len(self._after) >= REMEMBERED:
                self._after = {k: v for k, v in self._after.items() if v[0] > now}
            self._after[who] = (now + seconds, seconds)
        return seconds

    def too_soon(self, who: str) -> int | None:
        """None when ``who`` may read now; else the seconds they must still leave, made longer."""
        now = self._clock()
        with self._lock:
            found = self._after.get(who)
            if found is None or found[0] <= now:
                self._after.pop(who, None)
                return None
            penalty = min(found[1] * 2, MOST_PENALTY)
            not_before = min(found[0] + penalty, now + MOST_PENALTY)
            self._after[who] = (not_before, penalty)
            return math.ceil(not_before - now)


def pacer() -> Pacer:
    """The running app's :class:`Pacer`."""
    found = current_app.extensions.setdefault("menace_pacer", Pacer())
    assert isinstance(found, Pacer)
    return found


def reserved(threads: int) -> int:
    """Request threads no wait may take: an eighth of them, at least 2."""
    return max(2, threads // 8)


def gate() -> WaitGate:
    """The running app's gate, made from its configuration the first time."""
    from menace_course.service.state import state

    extensions = current_app.extensions
    found = extensions.get("menace_waits")
    if found is None:
        config = state().config
        found = extensions.setdefault(
            "menace_waits",
            WaitGate(
                per_student=config.per_user_queued,
                anonymous_total=max(1, config.threads // 4),
                total=max(1, config.threads - reserved(config.threads)),
            ),
        )
    assert isinstance(found, WaitGate)
    return found


def wait_for(attempt_id: str, seconds: float) -> bool:
    """Wait up to ``seconds`` for the attempt if the caller's ration allows; False if it did not."""
    from menace_course.service.rate_limits import rate_key
    from menace_course.service.state import state

    who = rate_key()
    with gate().place(who, anonymous=not who.startswith("user:")) as allowed:
        if allowed:
            state().dispatcher.wait(attempt_id, seconds)
    return allowed
