"""One run of ``menace grade``, from a submissions folder to a complete OUT, without printing.

:func:`grade_class` is the whole batch in order: collect the suite (for its hash), discover
the students, take the OUT lock, plan (what is already graded), grade the rest in parallel
(saving each record the moment it arrives), then assemble OUT's files. The command in
:mod:`menace_course.commands.grade` shows progress through the ``on_graded`` callback and
prints the :class:`Summary` this returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from menace_course.catalog import Challenge
from menace_course.checking.pipeline import time_allowed
from menace_course.checking.suite import Suite, collect
from menace_course.course import Course
from menace_course.errors import UsageError
from menace_course.grading.assemble import Layout, assemble
from menace_course.grading.batch import grade_task, lost_record, make_task, warm
from menace_course.grading.discover import Discovery, discover
from menace_course.grading.plan import Plan, make_plan
from menace_course.grading.record import Record, Row
from menace_course.grading.stats import ClassStats
from menace_course.grading.store import ResultStore
from menace_course.grading.table import LMS_COLUMNS
from menace_course.models import SandboxKind
from menace_course.pool import Graders


@dataclass(frozen=True)
class Request:
    """What to grade, where to, and how."""

    submissions: Path
    out: Path
    course: Course
    challenge: Challenge
    sandbox: SandboxKind
    jobs: int
    regrade: bool = False
    #: The language of the students' feedback files (``--feedback-lang``), never the grader machine's.
    feedback_language: str = "en"


@dataclass(frozen=True)
class ScoreChange:
    """A student whose score is not what it was before grading again."""

    student: str
    before: float
    after: float


@dataclass
class Summary:
    """What a run did."""

    stats: ClassStats
    graded: int
    already_graded: int
    seconds: float
    ignored: tuple[str, ...] = ()
    orphans: list[str] = field(default_factory=list)
    changes: list[ScoreChange] = field(default_factory=list)
    feedback_errors: list[str] = field(default_factory=list)


def prepare(request: Request) -> tuple[Suite, Discovery]:
    """The suite (collected here too, for its hash) and the students found."""
    suite = collect(request.course, request.challenge)
    found = discover(request.submissions, request.challenge.function, request.challenge.slug)
    if not found.entries:
        only = f" (only {', '.join(found.ignored)})" if found.ignored else ""
        raise UsageError(f"{request.submissions} holds no submissions{only}: is it the right folder?")
    return suite, found


def _layout(request: Request, found: Discovery) -> Layout:
    lms = {column for e in found.entries for column in e.lms}
    return Layout(
        out=request.out,
        templates=request.course.templates_dir,
        title=request.challenge.title,
        challenge=request.challenge.slug,
        lms_columns=tuple(c for c in LMS_COLUMNS if c in lms),
        has_late=any(e.late for e in found.entries),
        language=request.feedback_language,
    )


def grade_class(
    request: Request,
    on_start: Callable[[int], None] = lambda total: None,
    on_graded: Callable[[Record], None] = lambda record: None,
) -> Summary:
    """Grade every student of ``request.submissions`` into ``request.out`` (see the module's docstring)."""
    started = time.monotonic()
    suite, found = prepare(request)
    with ResultStore(request.out) as store, Graders(request.jobs) as pool:
        plan = make_plan(found.entries, store, request.challenge.slug, suite.suite_hash, request.regrade)
        on_start(len(plan.to_grade))
        changes = _grade(request, plan, store, pool, on_graded)
        keys = [e.key for e in sorted(found.entries, key=lambda e: (e.student.casefold(), e.key))]
        done = assemble(_layout(request, found), store, keys, pool)
    return Summary(
        stats=done.stats,
        graded=len(plan.to_grade),
        already_graded=len(plan.already_graded),
        seconds=time.monotonic() - started,
        ignored=found.ignored,
        orphans=plan.orphans,
        changes=changes,
        feedback_errors=done.feedback_errors,
    )


def _grade(
    request: Request,
    plan: Plan,
    store: ResultStore,
    pool: Graders,
    on_graded: Callable[[Record], None],
) -> list[ScoreChange]:
    tasks = [
        make_task(e, request.submissions, request.course, request.challenge.slug, request.sandbox)
        for e in plan.to_grade
    ]
    # The watchdog's limit is the challenge's, the same for every task (it reads the suite,
    # which the parent has collected already).
    seconds = time_allowed(request.challenge.limits)

    changes = []
    records = pool.run(
        grade_task,
        tasks,
        on_lost=lost_record,
        seconds=lambda task: seconds,
        warm=warm,
    )
    for record in records:
        store.save(record)
        row = Row.from_record(record)
        before = plan.previous_scores.get(row.key)
        if before is not None and round(before, 6) != round(row.score, 6):
            changes.append(ScoreChange(row.student, before, row.score))
        on_graded(record)
    return sorted(changes, key=lambda c: c.student.casefold())
