"""``menace serve export``: the service's grades for one challenge, in ``menace grade``'s own files.

For each student with a checked attempt, the attempt that counts (their best, or their
latest) becomes a record exactly like one ``menace grade`` makes
(:func:`~menace_course.grading.record.make_record`), kept in OUT's result store; then
grading's own writers (:func:`~menace_course.grading.assemble.assemble`) write
``grades.csv``, ``results.jsonl``, ``feedback/`` and ``report.html``. So ``menace export
canvas|moodle|...`` read OUT as they read the output of ``menace grade``.

Students without a checked attempt are not in OUT (an LMS import leaves their grade as
it was); :class:`Exported` names how many there are.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from menace_course.authoring.public import handed_out_match
from menace_course.catalog import Challenge
from menace_course.course import Course
from menace_course.grading.assemble import Layout, assemble
from menace_course.grading.discover import Entry
from menace_course.grading.names import Identity, key_for
from menace_course.grading.record import make_record
from menace_course.grading.store import ResultStore
from menace_course.models import SubmissionReport
from menace_course.pool import Graders
from menace_course.service.db.engine import Database
from menace_course.service.db.people import context_for
from menace_course.service.db.tables import Attempt, AttemptStatus, Membership, Role, User


@dataclass
class Exported:
    """What an export wrote."""

    students: int
    with_attempts: int
    #: learners of the course with no checked attempt: not in OUT, so the LMS keeps their grade
    without_attempts: list[str] = field(default_factory=list)
    feedback_errors: list[str] = field(default_factory=list)
    mixed_versions: bool = False


def _counted(attempts: list[Attempt], pick: str) -> Attempt:
    """The attempt that counts: the best score (the later one on a tie), or the latest."""
    if pick == "latest":
        return max(attempts, key=lambda a: a.created_at)
    return max(attempts, key=lambda a: (a.score or 0.0, a.created_at))


def _entry(name: str, key: str, attempt: Attempt, total: int, pick: str) -> Entry:
    """An entry as discovery would make it, for an attempt on the service."""
    note = (
        f"the {pick} of {total} attempt{'s' if total != 1 else ''} on the check service, "
        f"checked {attempt.created_at.isoformat(timespec='seconds')}"
    )
    return Entry(
        student=name,
        key=key,
        source=f"service attempt {attempt.id}",
        file=Path(attempt.filename),
        display_name=attempt.filename,
        notes=(note,),
        digest=attempt.sha256,
        file_sha256=attempt.sha256,
    )


def _unique(key: str, used: Counter[str]) -> str:
    used[key] += 1
    return key if used[key] == 1 else f"{key}_{used[key]}"


def export_challenge(course: Course, challenge: Challenge, db_url: str, out: Path, pick: str) -> Exported:
    """Write OUT for ``challenge`` from the local context's attempts (see the module's docstring)."""
    database = Database(db_url)
    try:
        with database.reading() as session:
            context = context_for(session)
            rows = session.execute(
                select(Attempt, User)
                .join(User, User.id == Attempt.user_id)
                .where(
                    Attempt.context_id == context.id,
                    Attempt.challenge == challenge.slug,
                    Attempt.status == AttemptStatus.DONE,
                )
                .order_by(Attempt.created_at)
            ).all()
            learners = session.scalars(
                select(User.name)
                .join(Membership, Membership.user_id == User.id)
                .where(Membership.context_id == context.id, Membership.role == Role.LEARNER)
            ).all()
    finally:
        database.dispose()
    by_user: dict[int, tuple[User, list[Attempt]]] = {}
    for attempt, user in rows:
        by_user.setdefault(user.id, (user, []))[1].append(attempt)
    used: Counter[str] = Counter()
    records = []
    for user, attempts in sorted(by_user.values(), key=lambda item: (item[0].name.casefold(), item[0].id)):
        attempt = _counted(attempts, pick)
        key = _unique(key_for(Identity("plain", user.name)), used)
        assert attempt.report is not None
        report = dataclasses.replace(SubmissionReport.from_dict(attempt.report), student=user.name)
        handed_out = handed_out_match(course, challenge.slug, attempt.source)
        records.append(
            make_record(_entry(user.name, key, attempt, len(attempts), pick), report, handed_out=handed_out)
        )
    keys = [r.grading.key for r in records]
    layout = Layout(out=out, templates=course.templates_dir, title=challenge.title, challenge=challenge.slug)
    with ResultStore(out) as store:
        for record in records:
            store.save(record)
        with Graders(1) as pool:
            done = assemble(layout, store, keys, pool)
    exported = {r.grading.student for r in records}
    left_out = sorted({name for name in learners if name not in exported}, key=str.casefold)
    return Exported(
        students=len(records) + len(left_out),
        with_attempts=len(records),
        without_attempts=left_out,
        feedback_errors=done.feedback_errors,
        mixed_versions=len({r.report.suite_hash for r in records}) > 1,
    )
