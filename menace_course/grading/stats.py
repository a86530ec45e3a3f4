"""What a class did, counted one record at a time: the numbers behind ``report.html``.

:class:`ClassStats` reads each :class:`~menace_course.grading.record.Row` once and keeps
only counts, a capped list of names per group and the few slowest submissions, so its
memory does not grow with the size of the class beyond one number per distinct score.
"""

from __future__ import annotations

import heapq
import statistics
from collections import Counter
from dataclasses import dataclass, field

from menace_course.grading.record import FAILED, PASSED, Row

#: Names listed per group of submissions failing the same tests (the rest are counted).
NAMES_PER_GROUP = 40
SLOWEST_SHOWN = 10


@dataclass(frozen=True)
class TestInfo:
    """A test's name and the line students read for it."""

    __test__ = False  # not a pytest test class

    name: str
    title: str


@dataclass
class Group:
    """Submissions that fail exactly the same tests."""

    failing: tuple[str, ...]
    count: int = 0
    names: list[str] = field(default_factory=list)


@dataclass
class ClassStats:
    """Counts over a class's rows; call :meth:`add` for each row."""

    tests: tuple[TestInfo, ...]
    students: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    scores: Counter[float] = field(default_factory=Counter)
    max_score: float = 0.0
    passed_by_test: Counter[str] = field(default_factory=Counter)
    ran: int = 0  #: submissions whose tests ran (passed or failed)
    groups: dict[tuple[str, ...], Group] = field(default_factory=dict)
    _slowest: list[tuple[float, str, str]] = field(default_factory=list)

    def add(self, row: Row) -> None:
        """Count one student's row."""
        self.students += 1
        self.statuses[row.status] += 1
        self.scores[round(row.score, 2)] += 1
        self.max_score = max(self.max_score, row.max_score)
        if row.status in (PASSED, FAILED):
            self.ran += 1
            self.passed_by_test.update(t.name for t in row.tests if t.outcome == PASSED)
            group = self.groups.setdefault(row.failed_tests, Group(row.failed_tests))
            group.count += 1
            if len(group.names) < NAMES_PER_GROUP:
                group.names.append(row.student)
        heapq.heappush(self._slowest, (row.seconds, row.student, row.status))
        if len(self._slowest) > SLOWEST_SHOWN:
            heapq.heappop(self._slowest)

    @property
    def slowest(self) -> list[tuple[float, str, str]]:
        """The slowest submissions, slowest first: (seconds, student, status)."""
        return sorted(self._slowest, reverse=True)

    def pass_rate(self, test: str) -> float:
        """The share of submissions whose tests ran that passed ``test`` (0 when none ran)."""
        return self.passed_by_test[test] / self.ran if self.ran else 0.0

    @property
    def failing_groups(self) -> list[Group]:
        """Groups of submissions failing the same tests, largest first; those passing all excluded."""
        return sorted(
            (g for g in self.groups.values() if g.failing),
            key=lambda g: (-g.count, len(g.failing), g.failing),
        )

    @property
    def mean_score(self) -> float:
        """The mean score over every student (0 for an empty class)."""
        total = sum(score * n for score, n in self.scores.items())
        return total / self.students if self.students else 0.0

    @property
    def median_score(self) -> float:
        """The median score over every student (0 for an empty class)."""
        if not self.students:
            return 0.0
        return float(statistics.median(self.scores.elements()))
