"""The checks ``menace validate`` makes on one challenge, apart from its mutants.

Each takes the course, the challenge (and its collected suite) and gives back plain
facts: what the reference did, whether the examples agree with it, which hint ids have
no words, what each known wrong solution did. :mod:`~menace_course.authoring.validate`
puts them together and decides.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from menace_course.catalog import Challenge, Example
from menace_course.checking.compare import same
from menace_course.checking.importing import import_file
from menace_course.checking.suite import Suite, call_text
from menace_course.course import Course
from menace_course.feedback import hint_ids
from menace_course.models import Outcome, SubmissionReport

#: The first line of a wrong solution may name the tests that must catch it.
CAUGHT_BY = re.compile(r"^#\s*caught-by:\s*(?P<names>.*)$", re.IGNORECASE)
#: ``equivalent_mutants`` entries read ``"<mutant id>: <why it cannot be told apart>"``.
EQUIVALENT = re.compile(r"^(?P<id>\S+):\s+(?P<reason>\S.*)$")


def failed_tests(report: SubmissionReport) -> list[str]:
    """Names of the tests that did not pass (all of them when the file did not load)."""
    return [t.name for t in report.tests if t.outcome is not Outcome.PASSED]


def outcomes(report: SubmissionReport) -> tuple[tuple[str, str], ...]:
    """Each test's name and outcome, to compare two runs of the same file."""
    return tuple((t.name, t.outcome.value) for t in report.tests)


# -- the reference, in this process (it is trusted) ---------------------------------------------


def load_reference(path: Path) -> ModuleType:
    """Import ``reference/<slug>.py`` (the grader's one way to import a course's file)."""
    return import_file(path)


def example_disagreements(
    challenge: Challenge,
    reference: ModuleType,
    examples: Sequence[Example] | None = None,
    where: str = "example",
    says: str = "challenge.toml expects",
) -> list[str]:
    """One line for each example whose expected value the reference does not give.

    ``examples`` are challenge.toml's unless given (validate also passes the README's
    ``>>>`` examples, with ``where="README example"`` and ``says="the README prints"``).
    """
    function = getattr(reference, challenge.function, None)
    if not callable(function):
        return [f"the reference defines no function {challenge.function}"]
    problems = []
    for number, example in enumerate(challenge.examples if examples is None else examples, start=1):
        call = call_text(challenge.function, example.args)
        try:
            got = function(*copy.deepcopy(example.args))
        except Exception as error:  # the author's reference: report it, do not crash
            problems.append(f"{where} {number}: {call} raised {type(error).__name__}: {error}")
            continue
        if not same(got, example.expected):
            problems.append(
                f"{where} {number}: {call} gives {got!r} in the reference, but {says} {example.expected!r}"
            )
    return problems


# -- hints --------------------------------------------------------------------------------------


def hints_used(challenge: Challenge, suite: Suite, test_files: list[Path]) -> set[str]:
    """Every hint id the challenge can show: its tests' ``@hint``, its examples', and any
    ``hint="..."`` written in the test files (checks raised inside a test)."""
    used = {c.hint for c in suite.cases if c.hint}
    used |= {e.hint for e in challenge.examples if e.hint}
    if challenge.example_hint:
        used.add(challenge.example_hint)
    for path in test_files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if keyword.arg == "hint" and isinstance(keyword.value, ast.Constant):
                    used.add(str(keyword.value.value))
            is_hint_call = isinstance(node.func, ast.Name) and node.func.id == "hint"
            if is_hint_call and node.args and isinstance(node.args[0], ast.Constant):
                used.add(str(node.args[0].value))
    return {h for h in used if h and h != "None"}


def missing_hints(course: Course, used: set[str]) -> list[str]:
    """Hint ids with no ``feedback_templates/hints/<id>.md.j2``."""
    return sorted(used - hint_ids(course.templates_dir))


# -- wrong solutions ----------------------------------------------------------------------------


@dataclass(frozen=True)
class WrongResult:
    """What the suite did to one known wrong solution in ``challenges/<slug>/wrong/``."""

    file: str
    failed_tests: tuple[str, ...]  #: every test it fails
    declared: tuple[str, ...]  #: the tests its ``# caught-by:`` line names
    not_caught_by: tuple[str, ...]  #: declared tests that it passes
    unknown: tuple[str, ...]  #: declared names that are no test of the suite
    #: (test, hint) for each hint it is shown that is about another mistake: the hint of
    #: no test it declares, nor the challenge's rules (see :func:`stray_hints`)
    stray_hints: tuple[tuple[str, str], ...] = ()

    @property
    def caught(self) -> bool:
        """True when some test fails it."""
        return bool(self.failed_tests)

    @property
    def ok(self) -> bool:
        """Caught by every test it says should catch it, and shown only hints about its mistake."""
        return self.caught and not self.not_caught_by and not self.unknown and not self.stray_hints


def declared_catchers(path: Path) -> tuple[str, ...]:
    """The test names on a wrong solution's ``# caught-by: a, b`` first line (``test_`` optional)."""
    first = path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0].strip()
    match = CAUGHT_BY.match(first)
    if match is None:
        return ()
    names = (n.strip() for n in match["names"].split(","))
    return tuple(n.removeprefix("test_") for n in names if n)


def check_wrong(path: Path, report: SubmissionReport, suite: Suite) -> WrongResult:
    """Compare what caught one wrong solution (``report``, its check) with what it declares."""
    failed = tuple(failed_tests(report))
    declared = declared_catchers(path)
    known = {c.name for c in suite.cases}
    return WrongResult(
        file=path.name,
        failed_tests=failed,
        declared=declared,
        not_caught_by=tuple(n for n in declared if n in known and n not in failed),
        unknown=tuple(n for n in declared if n not in known),
        stray_hints=stray_hints(report, suite, declared) if declared else (),
    )


def stray_hints(
    report: SubmissionReport, suite: Suite, declared: Sequence[str]
) -> tuple[tuple[str, str], ...]:
    """The hints a wrong solution is shown that are about another mistake, with their tests.

    A wrong solution's ``# caught-by:`` line names the tests written for its mistake; the
    hints that fit it are theirs: each named test's ``@hint`` and the hint it showed, and
    the challenge's rules (its ``example_hint``, which fits every mistake). Any other hint
    it is shown speaks of something it did right: that test checks more than its hint
    says, and must check in parts, each with the hint of what it checks (or the file must
    name that test too, if its hint does fit the mistake).

    A check whose call raised is not counted: its hint is shown as what that check checks
    (a hidden crash shows no input, so the hint says where to look), not as a diagnosis of
    the mistake.
    """
    marks = {c.name: c.hint for c in suite.cases}
    fitting = {suite.challenge.example_hint} | {marks.get(n) for n in declared}
    fitting |= {t.hint for t in report.tests if t.name in declared}
    return tuple(
        (t.name, t.hint)
        for t in report.tests
        if t.outcome is not Outcome.PASSED
        and t.hint is not None
        and t.hint not in fitting
        and not (t.outcome is Outcome.ERROR and t.detail is not None and t.detail.problem in CRASHES)
    )


#: Problems of a call that raised: the check's hint is then what it checks (see stray_hints).
CRASHES = frozenset({"raised", "recursion"})


# -- what challenge.toml says about validation ---------------------------------------------------


@dataclass(frozen=True)
class MutationSettings:
    """The ``[validate]`` table of challenge.toml, as validate uses it."""

    threshold: float
    equivalent: dict[str, str]  #: mutant id -> why it cannot be told apart from the reference
    only: tuple[str, ...]  #: top-level names whose code is mutated (empty: the whole module)
    problems: tuple[str, ...]  #: entries that could not be read


def mutation_settings(challenge: Challenge) -> MutationSettings:
    """The threshold, the equivalent mutants (``"id: reason"``) and ``mutate``, from the challenge.

    challenge.toml was read once, by :func:`menace_course.catalog.load_challenge`, which
    checked each key's type; only the shape of each equivalent-mutant entry is read here.
    """
    equivalent: dict[str, str] = {}
    problems = []
    for entry in challenge.equivalent_mutants:
        match = EQUIVALENT.match(str(entry).strip())
        if match is None:
            problems.append(f'equivalent_mutants entry {entry!r} must read "<mutant id>: <reason>"')
        else:
            equivalent[match["id"]] = match["reason"]
    return MutationSettings(challenge.mutant_threshold, equivalent, challenge.mutate, tuple(problems))
