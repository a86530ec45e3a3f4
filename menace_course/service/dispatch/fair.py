"""A fair line for checks: one first-in-first-out queue per lane, served in turns.

A *lane* is one student (``user:ID``) or all anonymous visitors together (see
:data:`~.base.ANONYMOUS_LANE`). When a grader is free it takes the oldest check of the lane
served least recently (a lane never served comes first, by the age of its oldest check)::

    alice: a1 a2 a3      bob: b1       a grader takes a1, then b1 (bob was never served),
                                       then a2, a3
    (alice flooding)    (arrives late)

So however many checks one student keeps waiting (``--per-student`` of them), another
student's check waits for at most one check of each other lane: with one flooding student
and one grader, for the check running now and nothing else.

The queue only orders; admission (how many a lane may hold) is decided before a job gets
here (:func:`~menace_course.service.db.attempts.admit_attempt`).
"""

from __future__ import annotations

import collections
import itertools
import threading

from menace_course.service.dispatch.base import CheckJob

#: Lanes whose last turn is remembered; past it the longest-unserved are forgotten (they
#: would come first anyway, as lanes never served do).
REMEMBERED_LANES = 10_000


class FairQueue:
    """Per-lane queues, served in turns (see the module's docstring); safe across threads."""

    def __init__(self) -> None:
        """An empty line."""
        self._ready = threading.Condition()
        self._lanes: dict[str, collections.deque[tuple[int, CheckJob]]] = {}
        self._served: dict[str, int] = {}  #: lane -> the turn it was last served at
        self._arrivals = itertools.count()
        self._turns = itertools.count(1)
        self._closed = False

    def put(self, job: CheckJob) -> None:
        """Add a check at the end of its lane."""
        with self._ready:
            self._lanes.setdefault(job.lane, collections.deque()).append((next(self._arrivals), job))
            self._ready.notify()

    def get(self) -> CheckJob | None:
        """The next check to run (waiting for one), or None once :meth:`close` was called."""
        with self._ready:
            while not self._lanes and not self._closed:
                self._ready.wait()
            if self._closed:
                return None
            lane = min(self._lanes, key=lambda name: (self._served.get(name, 0), self._lanes[name][0][0]))
            waiting = self._lanes[lane]
            _, job = waiting.popleft()
            if not waiting:
                del self._lanes[lane]
            self._served.pop(lane, None)
            self._served[lane] = next(self._turns)  # dicts keep order: the oldest turns come first
            if len(self._served) > REMEMBERED_LANES:
                del self._served[next(iter(self._served))]
            return job

    def close(self) -> None:
        """Wake every waiting :meth:`get`; from now on it returns None."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    def __len__(self) -> int:
        """Checks waiting (not those running)."""
        with self._ready:
            return sum(len(waiting) for waiting in self._lanes.values())
