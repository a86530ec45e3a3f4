"""Decide which entries need grading, so that a batch run again grades each submission once.

An entry is graded when it has no record yet, when its files changed since its record
was made (the record keeps their ``digest``), or with ``--regrade``. Otherwise its record
stands and it counts as already graded.

A record made with other tests (another ``suite_hash``: the hidden tests, the examples,
the reference or the package version changed) or for another challenge is never mixed
silently with new ones: without ``--regrade`` the plan refuses, and says what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from menace_course.errors import UsageError
from menace_course.exports import counted
from menace_course.grading.discover import Entry
from menace_course.grading.store import ResultStore


@dataclass
class Plan:
    """What a run of ``menace grade`` will do."""

    to_grade: list[Entry] = field(default_factory=list)
    already_graded: list[Entry] = field(default_factory=list)
    #: the score each entry had before it is graded again (to report changes)
    previous_scores: dict[str, float] = field(default_factory=dict)
    #: keys of records whose students are no longer in SUBMISSIONS (kept, not shown)
    orphans: list[str] = field(default_factory=list)


def make_plan(
    entries: tuple[Entry, ...], store: ResultStore, slug: str, suite_hash: str, regrade: bool
) -> Plan:
    """Sort the entries into those to grade and those already graded.

    Raises:
        UsageError: OUT holds results of another challenge, or of other tests without ``--regrade``.
    """
    plan = Plan()
    stale: list[str] = []
    for entry in entries:
        kept = store.summary(entry.key)
        if kept is None:
            plan.to_grade.append(entry)
            continue
        if kept.challenge != slug:
            raise UsageError(
                f"{store.out} holds results of the challenge {kept.challenge!r}, "
                f"not {slug!r}; use another --out"
            )
        if kept.suite_hash != suite_hash:
            stale.append(entry.student)
        changed = kept.digest != entry.digest
        if regrade or changed or kept.suite_hash != suite_hash:
            plan.to_grade.append(entry)
            plan.previous_scores[entry.key] = kept.score
        else:
            plan.already_graded.append(entry)
    if stale and not regrade:
        raise UsageError(
            f"{store.out} holds {counted(len(stale), 'result')} graded with other tests (or another "
            f"version of menace-course) than the current ones (e.g. {', '.join(stale[:3])}); run again with "
            "--regrade to grade everything with the current tests, or use another --out"
        )
    known = {e.key for e in entries}
    plan.orphans = sorted(store.keys() - known)
    return plan
