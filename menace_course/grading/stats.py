"""What a class did, counted one record at a time: the numbers behind ``report.html``.

:class:`ClassStats` reads each :class:`~menace_course.grading.record.Row` once and keeps
only counts, a capped list of names per group and the few slowest submissions, so its
memory does not grow with the size of the class beyond one number per distinct score.
It also names, up to :data:`NAMES_LISTED` each, the students whose code could not run
(and what happened: a syntax error, a timeout while loading...), those with checks that
did not finish in time, and those whose record says they need a look by hand.
"""

from __future__ import annotations

import heapq
import statistics
from collections import Counter
from dataclasses import dataclass, field

from menace_course.grading.record import Record, Row
from menace_course.models import Outcome

#: Names listed per group of submissions failing the same tests (the rest are counted).
NAMES_PER_GROUP = 40
SLOWEST_SHOWN = 10
#: Students named in each list of the report (could not run, timed out, needs review).
NAMES_LISTED = 200
#: Students listed with their score in the report's table of everyone (the rest: grades.csv).
ROSTER_LISTED = 5000
#: What a note must start with to put its student on the "needs review" list.
REVIEW_MARK = "needs review"

#: What happened to a submission, by status, when nothing more precise is known.
WHAT_HAPPENED = {
    "syntax_error": "syntax error",
    "load_error": "error while loading",
    "no_function": "function missing",
    "bad_signature": "wrong arguments",
    "unreadable": "could not be read",
    "empty": "nothing handed in",
    "no_python_file": "no Python file",
    "grader_error": "grader error (not the student's fault)",
    "timeout": "stopped: checking it took too long",
}
#: What happened while loading, by the load problem's kind (``detail.problem``).
WHILE_LOADING = {
    "timeout": "timeout while loading",
    "crashed": "stopped Python while loading",
    "memory": "too much memory while loading",
    "recursion": "endless recursion while loading",
    "input": "asked for input while loading",
    "exit": "ended the program while loading",
    "import": "imported a module that is not there",
}


@dataclass(frozen=True)
class TestInfo:
    """A test's name and the line students read for it."""

    __test__ = False  # not a pytest test class

    name: str
    title: str


@dataclass(frozen=True)
class Named:
    """A student on one of the report's lists, and why."""

    student: str
    what: str  #: a few words: "syntax error", "timeout while loading", "2 checks timed out"
    why: str = ""  #: the longer reason, as in ``grades.csv``


def what_happened(row: Row, record: Record | None = None) -> str:
    """A few words on why a submission's tests could not run (from its record when there is one)."""
    problem = record.report.load_problem if record is not None else None
    detail = problem.detail if problem is not None else None
    if row.status == "load_error" and detail is not None:
        if detail.problem in WHILE_LOADING:
            return WHILE_LOADING[detail.problem]
        if detail.error_type:
            return f"{detail.error_type} while loading"
    return WHAT_HAPPENED.get(row.status, row.status.replace("_", " "))


def review_notes(record: Record | None) -> list[str]:
    """The notes of a record that ask for a look by hand (they start with :data:`REVIEW_MARK`)."""
    notes = record.grading.notes if record is not None else ()
    return [n for n in notes if n.startswith(REVIEW_MARK)]


@dataclass(frozen=True)
class Scored:
    """A student's line in the report's table of everyone."""

    student: str
    score: float
    max_score: float
    status: str
    late: bool


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
    not_run: list[Named] = field(default_factory=list)  #: whose tests could not run, and why
    timed_out: list[Named] = field(default_factory=list)  #: whose tests ran, some too long
    timed_out_count: int = 0
    review: list[Named] = field(default_factory=list)  #: whose record asks for a look by hand
    review_count: int = 0
    #: whose tests ran but were stopped by a time limit before any test found a wrong answer
    stopped: int = 0
    late: int = 0  #: handed in after the deadline (the LMS's download says so)
    roster: list[Scored] = field(default_factory=list)  #: everyone, up to :data:`ROSTER_LISTED`
    _slowest: list[tuple[float, str, str]] = field(default_factory=list)

    def add(self, row: Row, record: Record | None = None) -> None:
        """Count one student's row (``record``, the full record, says more on what went wrong)."""
        self.students += 1
        self._name(row, record)
        self.statuses[row.status] += 1
        self.scores[round(row.score, 2)] += 1
        self.max_score = max(self.max_score, row.max_score)
        self.late += row.late
        if len(self.roster) < ROSTER_LISTED:
            self.roster.append(Scored(row.student, row.score, row.max_score, row.status, row.late))
        if row.tests_ran:
            self.ran += 1
            self.stopped += row.status == "timeout"
            self.passed_by_test.update(t.name for t in row.tests if t.outcome == Outcome.PASSED)
            group = self.groups.setdefault(row.failed_tests, Group(row.failed_tests))
            group.count += 1
            if len(group.names) < NAMES_PER_GROUP:
                group.names.append(row.student)
        heapq.heappush(self._slowest, (row.seconds, row.student, row.status))
        if len(self._slowest) > SLOWEST_SHOWN:
            heapq.heappop(self._slowest)

    def _name(self, row: Row, record: Record | None) -> None:
        if not row.tests_ran:
            if len(self.not_run) < NAMES_LISTED:
                self.not_run.append(Named(row.student, what_happened(row, record), row.reason))
        else:
            timeouts = sum(t.outcome == "timeout" for t in row.tests)
            if timeouts:
                self.timed_out_count += 1
                if len(self.timed_out) < NAMES_LISTED:
                    what = f"{timeouts} check{'s' if timeouts != 1 else ''} did not finish in time"
                    self.timed_out.append(Named(row.student, what, row.reason))
        notes = review_notes(record)
        if notes:
            self.review_count += 1
            if len(self.review) < NAMES_LISTED:
                self.review.append(Named(row.student, "needs review", "; ".join(notes)))

    @property
    def not_run_count(self) -> int:
        """Students whose tests could not run (see :attr:`~menace_course.grading.record.Row.tests_ran`)."""
        return self.students - self.ran

    @property
    def everyone(self) -> list[Scored]:
        """The table of everyone, by name (at most :data:`ROSTER_LISTED` students)."""
        return sorted(self.roster, key=lambda s: (s.student.casefold(), s.student))

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
