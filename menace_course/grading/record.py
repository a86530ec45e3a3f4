"""A student's record: the ``check --format json`` report plus a ``grading`` block.

A record is plain JSON data, the same in a worker's reply, in ``OUT/.results/<key>.json``
and as a line of ``results.jsonl``. Everything before ``grading`` is exactly what
``menace check FILE --format json`` prints, so
:meth:`SubmissionReport.from_dict <menace_course.models.SubmissionReport.from_dict>` reads
it back. The ``grading`` block says who the student is, which file was graded and why, the
verdict (``status``) and the reason for it. :class:`Row` is the typed view the tables, the
class report and the exports read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from menace_course.models import Outcome, Status, SubmissionReport, Verdict

PASSED = Verdict.PASSED
FAILED = Verdict.FAILED
GRADER_ERROR = Verdict.GRADER_ERROR
#: Verdicts of a submission that no test could run on (the student's file, not our fault).
NOT_RUN = tuple(v for v in Verdict if v not in (Verdict.PASSED, Verdict.FAILED, Verdict.GRADER_ERROR))


def verdict(report: SubmissionReport, problem: dict[str, str] | None) -> Verdict:
    """One word for how the submission did: ``passed``, ``failed``, or why nothing ran."""
    if problem:
        return Verdict(problem["status"])
    if report.status is Status.CHECKED:
        return PASSED if report.passed else FAILED
    return Verdict(report.status.value)


def reason(report: SubmissionReport, problem: dict[str, str] | None) -> str:
    """One line for the instructor on why the submission got its status."""
    if problem:
        return problem["message"]
    if report.load_problem is not None:
        return report.load_problem.message
    failed = sum(t.outcome is not Outcome.PASSED for t in report.tests)
    return f"{failed} of {len(report.tests)} tests did not pass" if failed else ""


def make_record(
    entry: dict[str, Any], report: SubmissionReport, grader_error: str | None = None
) -> dict[str, Any]:
    """The record of one graded entry (see the module's docstring)."""
    problem = entry.get("problem")
    record = report.to_dict()
    grader_error = grader_error or "\n".join(report.grader_log) or None
    record["grading"] = {
        **{k: v for k, v in entry.items() if k != "problem"},
        "status": GRADER_ERROR if grader_error else verdict(report, problem),
        "reason": reason(report, problem),
        "grader_error": grader_error,
    }
    return record


def number(value: float) -> str:
    """A score as people write it: ``15``, ``7.5``, ``0.33``."""
    return f"{round(value, 2):g}"


@dataclass(frozen=True)
class TestCell:
    """One test of one student, as a table shows it."""

    __test__ = False  # not a pytest test class

    name: str
    outcome: str
    points: float
    max_points: float


@dataclass(frozen=True)
class Row:
    """The parts of a record that tables, the class report and LMS exports use."""

    student: str
    key: str
    score: float
    max_score: float
    status: str
    reason: str
    file: str | None
    source: str
    lms: dict[str, str]
    late: bool
    seconds: float
    tests: tuple[TestCell, ...]
    challenge: str
    suite_hash: str

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Row:
        """Read the typed view out of a record."""
        grading = record["grading"]
        return cls(
            student=str(grading["student"]),
            key=str(grading["key"]),
            score=float(record["score"]),
            max_score=float(record["max_score"]),
            status=str(grading["status"]),
            reason=str(grading.get("reason") or ""),
            file=grading.get("file"),
            source=str(grading.get("source", "")),
            lms=dict(grading.get("lms") or {}),
            late=bool(grading.get("late")),
            seconds=float(record.get("seconds", 0.0)),
            tests=tuple(
                TestCell(str(t["name"]), str(t["outcome"]), float(t["points"]), float(t["max_points"]))
                for t in record.get("tests", [])
            ),
            challenge=str(record.get("challenge", "")),
            suite_hash=str(record.get("suite_hash", "")),
        )

    @property
    def failed_tests(self) -> tuple[str, ...]:
        """Names of the tests that did not pass, in the suite's order."""
        return tuple(t.name for t in self.tests if t.outcome != Outcome.PASSED.value)
