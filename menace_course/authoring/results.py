"""What ``menace validate`` found, as frozen plain data, and its JSON form.

``menace validate --format json`` prints :meth:`CourseResult.to_dict`::

    {"ok": false, "sandbox": "bwrap", "challenges": [
      {"slug": "after_game", "ok": false,
       "reference_passes": true, "reference_failures": [],
       "starter_fails": true, "examples_agree": true,
       "hidden_tests": 12, "hints_missing": [],
       "wrong_caught": true,
       "wrong": [{"file": "no_floor.py", "caught": true, "ok": true, "failed_tests": [...],
                  "declared": [...], "not_caught_by": [], "unknown": [], "stray_hints": []}],
       "free": [{"label": "gives back None", "kind": "does_nothing", "score": 0.0,
                 "max_score": 15.0, "most": 0.0, "passed_tests": [], "ok": true}],
       "public_passing": [{"file": "...", "score": 12.0, "max_score": 12.0, "passes": true}],
       "deterministic": true, "seconds": 0.41, "budget_seconds": 20.0, "within_budget": true,
       "mutants": {"killed": 25, "total": 27, "score": 0.926, "threshold": 0.9,
                   "passes": true,
                   "survivors": [{"id": "stmt_removed@22:5", "description": "..."}],
                   "equivalent": [{"id": "...", "description": "...", "reason": "...",
                                   "killed": false}],
                   "killed_by": {"example_1": 12, "...": 3}},
       "problems": ["..."]}]}

``mutants`` is null when they were not run (the reference must pass first).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from menace_course.authoring.checks import WrongResult
from menace_course.authoring.killing import MutantResult
from menace_course.authoring.mutants import Mutant
from menace_course.authoring.nothing import FreeResult


@dataclass(frozen=True)
class Survivor:
    """A mutant every test passes: a wrong program the suite would give full marks."""

    id: str
    description: str


@dataclass(frozen=True)
class Equivalent:
    """A mutant the author says cannot be told apart from the reference, and why."""

    id: str
    description: str
    reason: str
    killed: bool  #: True means it is not equivalent after all: the entry can go


@dataclass(frozen=True)
class MutantScore:
    """How many mutants of the reference the tests kill."""

    killed: int
    total: int  #: mutants that count (the equivalent ones do not)
    threshold: float
    survivors: tuple[Survivor, ...]
    equivalent: tuple[Equivalent, ...]
    killed_by: tuple[tuple[str, int], ...]  #: (test, mutants it killed first), most first

    @property
    def score(self) -> float:
        """The share of counted mutants killed (1.0 when there are none)."""
        return self.killed / self.total if self.total else 1.0

    @property
    def percent(self) -> float:
        """The score in per cent."""
        return 100 * self.score

    @property
    def passes(self) -> bool:
        """True when the score reaches the threshold."""
        return self.score + 1e-9 >= self.threshold

    @classmethod
    def from_verdicts(
        cls,
        mutants: Sequence[Mutant],
        verdicts: Sequence[MutantResult],
        equivalent: Mapping[str, str],
        threshold: float,
    ) -> MutantScore:
        """Count the verdicts, leaving out the mutants listed as equivalent."""
        by_id = {m.id: m for m in mutants}
        counted = [v for v in verdicts if v.id not in equivalent]
        return cls(
            killed=sum(v.killed for v in counted),
            total=len(counted),
            threshold=threshold,
            survivors=tuple(Survivor(v.id, by_id[v.id].description) for v in counted if not v.killed),
            equivalent=tuple(
                Equivalent(v.id, by_id[v.id].description, equivalent[v.id], v.killed)
                for v in verdicts
                if v.id in equivalent
            ),
            killed_by=tuple(Counter(v.killed_by for v in counted if v.killed_by).most_common()),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "killed": self.killed,
            "total": self.total,
            "score": round(self.score, 4),
            "threshold": self.threshold,
            "passes": self.passes,
            "survivors": [asdict(s) for s in self.survivors],
            "equivalent": [asdict(e) for e in self.equivalent],
            "killed_by": dict(self.killed_by),
        }


@dataclass(frozen=True)
class PublicPass:
    """A file students receive that already earns more than a third of a challenge."""

    file: str  #: where it comes from, e.g. "the new_box starter (menace start new_box)"
    score: float
    max_score: float

    @property
    def passes(self) -> bool:
        """True when it passes every check."""
        return self.score == self.max_score


@dataclass(frozen=True)
class ChallengeResult:
    """Everything ``validate`` found about one challenge."""

    slug: str
    title: str
    reference_passes: bool
    reference_failures: tuple[str, ...]
    starter_fails: bool
    examples_agree: bool
    hints_missing: tuple[str, ...]
    hidden_tests: int
    wrong: tuple[WrongResult, ...]
    free: tuple[FreeResult, ...]  #: what do-nothing and examples-only files scored
    public_passing: tuple[PublicPass, ...]  #: files students receive that earn over a third of it
    deterministic: bool
    seconds: float  #: the suite's time on the reference
    budget_seconds: float
    mutants: MutantScore | None  #: None when they were not run
    problems: tuple[str, ...]  #: every failed check, in words, saying what and where

    @property
    def within_budget(self) -> bool:
        """True when the suite ran on the reference within the challenge's time budget."""
        return 0 < self.seconds <= self.budget_seconds

    @property
    def wrong_caught(self) -> bool:
        """True when every wrong solution fails, by the tests it names."""
        return all(w.ok for w in self.wrong)

    @property
    def free_ok(self) -> bool:
        """True when no do-nothing or examples-only file scores more than it may."""
        return all(f.ok for f in self.free)

    @property
    def ok(self) -> bool:
        """True when every check passes."""
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (the schema in the module docstring)."""
        return {
            "slug": self.slug,
            "title": self.title,
            "ok": self.ok,
            "reference_passes": self.reference_passes,
            "reference_failures": list(self.reference_failures),
            "starter_fails": self.starter_fails,
            "examples_agree": self.examples_agree,
            "hidden_tests": self.hidden_tests,
            "hints_missing": list(self.hints_missing),
            "wrong_caught": self.wrong_caught,
            "wrong": [{**asdict(w), "caught": w.caught, "ok": w.ok} for w in self.wrong],
            "free": [{**asdict(f), "ok": f.ok} for f in self.free],
            "public_passing": [{**asdict(p), "passes": p.passes} for p in self.public_passing],
            "deterministic": self.deterministic,
            "seconds": self.seconds,
            "budget_seconds": self.budget_seconds,
            "within_budget": self.within_budget,
            "mutants": self.mutants.to_dict() if self.mutants else None,
            "problems": list(self.problems),
        }


@dataclass(frozen=True)
class CourseResult:
    """The validation of several challenges."""

    challenges: tuple[ChallengeResult, ...]
    sandbox: str = "process"  #: where the submissions and mutants ran: ``bwrap`` or ``process``

    @property
    def ok(self) -> bool:
        """True when every challenge validates."""
        return all(c.ok for c in self.challenges)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "ok": self.ok,
            "sandbox": self.sandbox,
            "challenges": [c.to_dict() for c in self.challenges],
        }
