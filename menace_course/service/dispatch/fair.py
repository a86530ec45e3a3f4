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

With two or more graders, anonymous visitors together never hold the last free one: it is
kept for signed-in students (:func:`anonymous_share`), so a student checking while 50
addresses flood waits for no anonymous check to end. Anonymous checks still run whenever
the other graders are free, and a single grader serves them as before (no reserve).

The queue only orders; admission (how many a lane may hold) is decided before a job gets
here (:func:`~menace_course.service.db.attempts.admit_attempt`).
"""

from __future__ import annotations

import collections
import itertools
import threading

from menace_course.service.dispatch.base import ANONYMOUS_LANE, CheckJob

#: Lanes whose last turn is remembered; past it the longest-unserved are forgotten (they
#: would come first anyway, as lanes never served do).
REMEMBERED_LANES = 10_000


def anonymous_share(graders: int) -> int:
    """How many graders anonymous checks may hold at once: all but one kept for signed-in
    students when there are two or more, the only one otherwise (so it still serves them)."""
    return graders - 1 if graders >= 2 else max(1, graders)


class FairQueue:
    """Per-lane queues, served in turns (see the module's docstring); safe across threads.

    With ``graders`` given, at most :func:`anonymous_share` of them run anonymous checks at
    once: a :meth:`get` that returned an anonymous check must be followed by :meth:`done`
    for it when it ends. Without (``None``), no lane is held back.
    """

    def __init__(self, graders: int | None = None) -> None:
        """An empty line for ``graders`` graders (``None``: no reserve)."""
        self.anonymous_limit = None if graders is None else anonymous_share(graders)
        self._anonymous_running = 0
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
            while not self._closed and not self._eligible():
                self._ready.wait()
            if self._closed:
                return None
            lane = min(
                self._eligible(), key=lambda name: (self._served.get(name, 0), self._lanes[name][0][0])
            )
            if lane == ANONYMOUS_LANE:
                self._anonymous_running += 1
            waiting = self._lanes[lane]
            _, job = waiting.popleft()
            if not waiting:
                del self._lanes[lane]
            self._served.pop(lane, None)
            self._served[lane] = next(self._turns)  # dicts keep order: the oldest turns come first
            if len(self._served) > REMEMBERED_LANES:
                del self._served[next(iter(self._served))]
            return job

    def done(self, job: CheckJob) -> None:
        """A check :meth:`get` returned has ended (run or not): an anonymous one frees its share."""
        if job.lane != ANONYMOUS_LANE:
            return
        with self._ready:
            self._anonymous_running = max(0, self._anonymous_running - 1)
            self._ready.notify()

    def _eligible(self) -> list[str]:
        """The lanes a free grader may serve now: the anonymous one only below its share."""
        held = self.anonymous_limit is not None and self._anonymous_running >= self.anonymous_limit
        return [lane for lane in self._lanes if not (held and lane == ANONYMOUS_LANE)]

    def close(self) -> None:
        """Wake every waiting :meth:`get`; from now on it returns None."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    def __len__(self) -> int:
        """Checks waiting (not those running)."""
        with self._ready:
            return sum(len(waiting) for waiting in self._lanes.values())


class FairSlots:
    """A few slots (the lesson runner's) shared in the same turns: one per owner, waiting in line.

    An *owner* is a student or an address. Each holds at most one slot or one place in the
    line at a time. A freed slot is handed over, never grabbed: it goes to the waiting owner
    served least recently (by arrival among equals), so two owners who ask again the moment
    their run ends cannot keep both slots while a third waits. At most ``waiting`` owners
    wait; past that, or after ``timeout`` seconds in the line, the answer is "no room".
    """

    def __init__(self, slots: int, waiting: int) -> None:
        """``slots`` run at once; ``waiting`` may wait for one."""
        self.slots = slots
        self.waiting = waiting
        self._changed = threading.Condition()
        self._running: set[str] = set()
        self._line: dict[str, int] = {}  #: owner -> arrival
        self._served: dict[str, int] = {}  #: owner -> the turn they were last given a slot at
        self._arrivals = itertools.count()
        self._turns = itertools.count(1)

    def _give(self, owner: str) -> None:
        self._running.add(owner)
        self._served.pop(owner, None)
        self._served[owner] = next(self._turns)
        if len(self._served) > REMEMBERED_LANES:
            del self._served[next(iter(self._served))]

    def _hand_over(self) -> None:
        while self._line and len(self._running) < self.slots:
            owner = min(self._line, key=lambda name: (self._served.get(name, 0), self._line[name]))
            del self._line[owner]
            self._give(owner)
        self._changed.notify_all()

    def take(self, owner: str, timeout: float) -> str:
        """``"taken"`` (a slot is the owner's: :meth:`give_back` it), ``"yours"`` (the owner
        already runs or waits), or ``"full"`` (the line is full, or the wait ran out)."""
        with self._changed:
            if owner in self._running or owner in self._line:
                return "yours"
            if len(self._running) < self.slots and not self._line:
                self._give(owner)
                return "taken"
            if len(self._line) >= self.waiting:
                return "full"
            self._line[owner] = next(self._arrivals)
            self._changed.wait_for(lambda: owner not in self._line, timeout)
            if owner in self._line:  # the wait ran out before a slot came
                del self._line[owner]
                return "full"
            return "taken"

    def give_back(self, owner: str) -> None:
        """End the owner's run: its slot goes to the next in the line."""
        with self._changed:
            self._running.discard(owner)
            self._hand_over()

    def line(self) -> int:
        """Owners waiting now."""
        with self._changed:
            return len(self._line)

    def running(self) -> int:
        """Owners holding a slot now."""
        with self._changed:
            return len(self._running)
