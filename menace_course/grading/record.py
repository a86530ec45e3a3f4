"""A student's record: the ``check --format json`` report plus a ``grading`` block.

In the grader a record is a frozen :class:`Record` (the :class:`SubmissionReport` and a
:class:`Grading`); it becomes JSON only at the store (``OUT/.results/<key>.json``) and in
``results.jsonl``, where everything before ``grading`` is exactly what
``menace check FILE --format json`` prints (docs/json-schema.md). The ``grading`` block
says who the student is, which file was graded and why, the verdict (``status``) and the
reason for it. :class:`Row` is the typed view the tables, the class report and the
exports read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from menace_course.models import Finding, Outcome, Problem, Status, SubmissionReport, Verdict

if TYPE_CHECKING:
    from menace_course.checking.entry import EntryProblem
    from menace_course.grading.discover import Entry


@dataclass(frozen=True)
class Grading:
    """Who handed the submission in, what was graded, and the verdict (a record's ``grading``)."""

    student: str
    key: str  #: unique in the batch; names the student's files in OUT
    status: Verdict
    reason: str = ""  #: one line for the instructor
    source: str = ""  #: what was found in SUBMISSIONS
    file: str | None = None  #: the file graded, relative to SUBMISSIONS
    file_raw: str | None = None  #: its real name, percent-encoded, when ``file`` shows it otherwise
    display_name: str | None = None
    notes: tuple[str, ...] = ()
    lms: dict[str, str] = field(default_factory=dict)
    late: bool = False
    digest: str = ""  #: of every file of the entry: a changed entry is graded again
    file_sha256: str | None = None
    grader_error: str | None = None  #: the grader's traceback (instructor only)

    def to_dict(self) -> dict[str, Any]:
        """The ``grading`` block as JSON-ready data (``file_raw`` only when there is one)."""
        data: dict[str, Any] = {
            "student": self.student,
            "key": self.key,
            "source": self.source,
            "file": self.file,
            "display_name": self.display_name,
            "notes": list(self.notes),
            "lms": dict(self.lms),
            "late": self.late,
            "digest": self.digest,
            "file_sha256": self.file_sha256,
            "status": self.status.value,
            "reason": self.reason,
            "grader_error": self.grader_error,
        }
        if self.file_raw is not None:
            data["file_raw"] = self.file_raw
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Grading:
        """Read a ``grading`` block back (raises KeyError, TypeError or ValueError when malformed)."""
        return cls(
            student=str(data["student"]),
            key=str(data["key"]),
            status=Verdict(data["status"]),
            reason=str(data.get("reason") or ""),
            source=str(data.get("source") or ""),
            file=data.get("file"),
            file_raw=data.get("file_raw"),
            display_name=data.get("display_name"),
            notes=tuple(str(n) for n in data.get("notes") or ()),
            lms={str(k): str(v) for k, v in (data.get("lms") or {}).items()},
            late=bool(data.get("late")),
            digest=str(data.get("digest") or ""),
            file_sha256=data.get("file_sha256"),
            grader_error=data.get("grader_error"),
        )


@dataclass(frozen=True)
class Record:
    """One graded entry: the report and its grading block."""

    report: SubmissionReport
    grading: Grading

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data: the report's own fields, and ``grading``."""
        return {**self.report.to_dict(), "grading": self.grading.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Record:
        """Read a record back (raises KeyError, TypeError or ValueError when malformed)."""
        return cls(SubmissionReport.from_dict(data), Grading.from_dict(data["grading"]))


PASSED = Verdict.PASSED
FAILED = Verdict.FAILED
GRADER_ERROR = Verdict.GRADER_ERROR
TIMEOUT = Verdict.TIMEOUT
#: Verdicts of a submission that no test could run on (the student's file, not our fault).
NOT_RUN = tuple(v for v in Verdict if v not in (Verdict.PASSED, Verdict.FAILED, Verdict.GRADER_ERROR))


def verdict(report: SubmissionReport, problem: EntryProblem | None) -> Verdict:
    """One word for how the submission did: ``passed``, ``failed``, ``timeout``, or why nothing ran.

    A submission whose tests ran is ``timeout`` when what kept it from passing is time:
    a call did not finish in time (the tests after it could not run) and no test found a
    wrong answer or an error. Any wrong answer makes it ``failed``.
    """
    if problem is not None:
        return Verdict(problem.code)
    detail = report.load_problem.detail if report.load_problem is not None else None
    if detail is not None and detail.problem is Problem.NOTHING:
        return Verdict.EMPTY  # a file of comments only: nothing was handed in
    if report.status is Status.CHECKED:
        if report.passed:
            return PASSED
        outcomes = {t.outcome for t in report.tests}
        if Outcome.TIMEOUT in outcomes and not outcomes & WRONG:
            return TIMEOUT
        return FAILED
    return Verdict(report.status.value)


#: Outcomes of a test that found something wrong with the answer itself.
WRONG = frozenset({Outcome.FAILED, Outcome.ERROR, Outcome.GRADER_ERROR})


def reason(report: SubmissionReport, problem: EntryProblem | None) -> str:
    """One line for the instructor on why the submission got its status."""
    if problem is not None:
        return problem.message
    if report.integrity:  # never a clean pass, whatever the tests say
        return "; ".join(review_note(f) for f in report.integrity[:3])
    if report.load_problem is not None:
        return report.load_problem.message
    failed = sum(t.outcome is not Outcome.PASSED for t in report.tests)
    if not failed:
        return ""
    timed_out = [t for t in report.tests if t.outcome is Outcome.TIMEOUT]
    if not timed_out:
        return f"{failed} of {len(report.tests)} tests did not pass"
    late = f"{report.function} did not finish in time in {_tests(len(timed_out))} ({timed_out[0].title})"
    not_run = sum(t.outcome is Outcome.SKIPPED for t in report.tests)
    if verdict(report, None) is TIMEOUT:
        return f"stopped: {late}" + (f"; {_tests(not_run)} could not run after that" if not_run else "")
    return f"{failed} of {len(report.tests)} tests did not pass; {late}"


def _tests(count: int) -> str:
    return f"{count} test{'s' if count != 1 else ''}"


def make_record(
    entry: Entry, report: SubmissionReport, grader_error: str | None = None, handed_out: str | None = None
) -> Record:
    """The record of one graded entry (see the module's docstring).

    The grader's own tracebacks (``report.grader_log``, or ``grader_error``) make the
    verdict ``grader_error`` and are kept in the grading block, for the instructor.
    ``handed_out`` names a file students receive whose function the submission's is (see
    :func:`~menace_course.authoring.public.handed_out_match`): it is noted for review,
    and the score is what the tests gave.
    """
    grader_error = grader_error or "\n".join(report.grader_log) or None
    shown = entry.to_dict()  # the file's name as shown, and its real bytes when they differ
    notes = tuple(entry.notes)
    if report.integrity:  # the class report lists notes that start "needs review"
        notes += tuple(review_note(f) for f in report.integrity)
    if handed_out is not None:
        notes += (handed_out_note(handed_out),)
    grading = Grading(
        student=entry.student,
        key=entry.key,
        status=GRADER_ERROR if grader_error else verdict(report, entry.problem),
        reason=reason(report, entry.problem),
        source=entry.source,
        file=shown["file"],
        file_raw=shown.get("file_raw"),
        display_name=entry.display_name,
        notes=notes,
        lms=dict(entry.lms),
        late=entry.late,
        digest=entry.digest,
        file_sha256=entry.file_sha256,
        grader_error=grader_error,
    )
    return Record(report, grading)


def handed_out_note(label: str) -> str:
    """``needs review: matches a file handed out: step1.py (menace start step1)``."""
    return f"needs review: matches a file handed out: {label}"


def review_note(finding: Finding) -> str:
    """A finding as a record's note: ``needs review: reads sys.modules (line 3)``."""
    where = f" (line {finding.line})" if finding.line else ""
    return f"needs review: {finding.what}{where}"


def number(value: float) -> str:
    """A score as people write it: ``15``, ``7.5``, ``0.33``."""
    return f"{round(value, 2):g}"


@dataclass(frozen=True)
class TestCell:
    """One test of one student, as a table shows it."""

    __test__ = False  # not a pytest test class

    name: str
    outcome: Outcome
    points: float
    max_points: float


@dataclass(frozen=True)
class Row:
    """The parts of a record that tables, the class report and LMS exports use."""

    student: str
    key: str
    score: float
    max_score: float
    status: Verdict
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
    def from_record(cls, record: Record) -> Row:
        """Read the typed view out of a record."""
        report, grading = record.report, record.grading
        return cls(
            student=grading.student,
            key=grading.key,
            score=report.score,
            max_score=report.max_score,
            status=grading.status,
            reason=grading.reason,
            file=grading.file,
            source=grading.source,
            lms=dict(grading.lms),
            late=grading.late,
            seconds=report.seconds,
            tests=tuple(TestCell(t.name, t.outcome, t.points, t.max_points) for t in report.tests),
            challenge=report.challenge,
            suite_hash=report.suite_hash,
        )

    @property
    def tests_ran(self) -> bool:
        """True when the tests ran on the submission (passed, failed, or stopped by a call's time limit)."""
        if self.status in (PASSED, FAILED):
            return True
        return self.status is TIMEOUT and any(t.outcome is not Outcome.SKIPPED for t in self.tests)

    @property
    def failed_tests(self) -> tuple[str, ...]:
        """Names of the tests that did not pass, in the suite's order."""
        return tuple(t.name for t in self.tests if t.outcome != Outcome.PASSED)
