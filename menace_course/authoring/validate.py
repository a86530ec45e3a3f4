"""``menace validate``: prove that a challenge's tests are good, not only that they pass.

For each challenge, in this order:

1. its hidden tests exist and import, use only what the grader runs (plain functions
   ``test_*(submission)``: no test class, fixture, pytest mark or ``async`` test, each
   refused with its file and line), and every hint id they use has a template;
2. the reference (``reference/<slug>.py``) passes every visible and hidden test, in the
   sandbox, twice with the same outcomes (the suite is deterministic), within the
   challenge's ``limits.budget_seconds``;
3. the starter fails, and each known wrong solution in ``challenges/<slug>/wrong/``
   fails (by the tests its ``# caught-by:`` line names, when it names some);
   and is shown only hints about its mistake (the hints of the tests it names);
4. the examples in challenge.toml and the README's ``>>>`` examples are what the reference
   gives (called here: it is trusted);
5. no points for nothing: a submission that does nothing (gives back None, or its first
   argument) scores 0, and one that gives back only the printed examples' answers scores
   at most a third (see :mod:`~menace_course.authoring.nothing`);
6. the tests are oracle-free: the reference, the starter and every wrong solution get the
   same calls from each test (a test may stop at its first failing check, never call
   again because an answer was wrong; see :mod:`~menace_course.authoring.oracle`);
7. mutants of the reference (see :mod:`~menace_course.authoring.mutants`) are killed: at
   least ``[validate] mutant_threshold`` of them (90 % by default), not counting those
   listed in ``equivalent_mutants`` with the reason they cannot be told apart.

8. no file students receive (other challenges' starters, the step programs of
   ``menace start`` and the modules they come with) earns more than a third of it;
9. a test module that says its tests share no state (``TESTS_SHARE_NO_STATE = True``)
   keeps its word on every file above: no test changes the module's state, and every
   file gets the same verdicts whether the tests whose replies are all the reference's
   run or not (see :mod:`~menace_course.authoring.state`).

Example:
    from menace_course.authoring.validate import validate_course
    result = validate_course(find_course(None), ["after_game"], "process", jobs=2)
    result.ok, result.challenges[0].mutants.survivors
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from menace_course import catalog
from menace_course.authoring import checks
from menace_course.authoring.killing import Judge
from menace_course.authoring.mutants import generate_mutants
from menace_course.authoring.nothing import FreeResult, free_attempts, readme_examples
from menace_course.authoring.oracle import branching, describe
from menace_course.authoring.public import defines, public_files
from menace_course.authoring.results import ChallengeResult, CourseResult, MutantScore, PublicPass
from menace_course.catalog import Challenge
from menace_course.checking.suite import Suite, UnsupportedTests, collect
from menace_course.course import Course
from menace_course.models import Outcome, SandboxKind, SubmissionReport, TestKind

Tick = Callable[[], None]
#: Given a number of mutants and a label, a context giving a callback to call after each.
ProgressFactory = Callable[[int, str], AbstractContextManager[Tick]]


def validate_course(
    course: Course,
    slugs: Sequence[str],
    kind: SandboxKind,
    jobs: int = 2,
    progress: ProgressFactory | None = None,
) -> CourseResult:
    """Validate the named challenges (every one when ``slugs`` is empty)."""
    names = list(slugs) or catalog.list_slugs(course)
    with Judge(course, kind, jobs) as judge:
        results = [
            validate_challenge(course, catalog.load_challenge(course, slug), judge, progress)
            for slug in names
        ]
    return CourseResult(tuple(results), kind)


@dataclass
class _Findings:
    """What is learned about one challenge, filled in check by check."""

    challenge: Challenge
    problems: list[str] = field(default_factory=list)
    reference_passes: bool = False
    reference_failures: tuple[str, ...] = ()
    starter_fails: bool = False
    examples_agree: bool = False
    hints_missing: tuple[str, ...] = ()
    hidden_tests: int = 0
    wrong: tuple[checks.WrongResult, ...] = ()
    free: tuple[FreeResult, ...] = ()
    public_passing: tuple[PublicPass, ...] = ()
    deterministic: bool = False
    seconds: float = 0.0


def validate_challenge(
    course: Course, challenge: Challenge, judge: Judge, progress: ProgressFactory | None = None
) -> ChallengeResult:
    """Every check on one challenge; problems are collected, never raised."""
    found = _Findings(challenge)
    slug = challenge.slug
    reference_path = course.reference_dir / f"{slug}.py"
    test_files = sorted((course.hidden_tests_dir / slug).glob("test_*.py"))
    if not reference_path.is_file():
        found.problems.append(f"no reference: write {_rel(course, reference_path)}")
    if not test_files:
        found.problems.append(
            f"no hidden tests: write {_rel(course, course.hidden_tests_dir / slug)}/test_{slug}.py"
        )
    try:
        suite = collect(course, challenge)
    except UnsupportedTests as refused:  # what pytest would run and the grader would not: each, file:line
        found.problems += refused.problems
        return _result(found, None)
    except Exception as error:  # an author's test file that does not import: say where
        found.problems.append(f"the hidden tests do not import: {type(error).__name__}: {error}")
        return _result(found, None)
    found.hidden_tests = sum(c.kind is not TestKind.EXAMPLE for c in suite.cases)
    used = checks.hints_used(challenge, suite, test_files)
    missing = checks.missing_hints(course, used)
    found.hints_missing = tuple(missing)
    found.problems += [f"hint {h!r} has no words: write feedback_templates/hints/{h}.md.j2" for h in missing]
    if reference_path.is_file():
        _check_reference(course, found, judge, reference_path)
    _check_starter_and_wrong(course, found, suite, judge)
    if reference_path.is_file():
        _check_oracle_free(course, found, judge, reference_path)
        if any(case.shares_no_state for case in suite.cases):
            _check_shared_state(course, found, judge, reference_path)
    _check_free_attempts(found, judge)
    _check_public_files(course, found, judge)
    score = _check_mutants(course, found, judge, reference_path, progress)
    return _result(found, score)


def _check_reference(course: Course, found: _Findings, judge: Judge, path: Path) -> None:
    # Twice in a row, in one worker: the suite must give the same outcomes.
    first, second = judge.check_twice(found.challenge.slug, path)
    found.problems += grader_troubles(first, f"the reference {_rel(course, path)}")
    failed = checks.failed_tests(first)
    found.reference_passes = first.passed
    found.reference_failures = tuple(failed)
    found.seconds = first.seconds
    if not first.passed:
        reason = (
            f"could not be checked: {first.load_problem.message}"
            if first.load_problem
            else f"fails {', '.join(failed)}"
        )
        found.problems.append(f"the reference {_rel(course, path)} {reason}")
    deterministic = checks.outcomes(first) == checks.outcomes(second)
    found.deterministic = deterministic
    if not deterministic:
        changed = [
            a[0] for a, b in zip(checks.outcomes(first), checks.outcomes(second), strict=False) if a != b
        ]
        found.problems.append(f"the suite is not deterministic: {', '.join(changed)} changed")
    budget = found.challenge.limits.budget_seconds
    if first.seconds > budget:
        found.problems.append(
            f"the suite took {first.seconds:.1f} s on the reference, over its budget of {budget:g} s"
        )
    try:
        module = checks.load_reference(path)
        disagreements = [f"challenge.toml {d}" for d in checks.example_disagreements(found.challenge, module)]
        printed = readme_examples(found.challenge)
        disagreements += [
            f"{_rel(course, found.challenge.text)}: {d}"
            for d in checks.example_disagreements(
                found.challenge, module, printed, "README example", "the README prints"
            )
        ]
    except Exception as error:  # the author's reference did not even import
        disagreements = [f"the reference does not import: {type(error).__name__}: {error}"]
    found.examples_agree = not disagreements
    found.problems += disagreements


def _check_starter_and_wrong(course: Course, found: _Findings, suite: Suite, judge: Judge) -> None:
    challenge = found.challenge
    wrong_files = sorted((challenge.folder / "wrong").glob("*.py"))
    starter_files = [challenge.starter] if challenge.starter.is_file() else []
    reports = judge.check_files(challenge.slug, [*starter_files, *wrong_files])
    if starter_files:
        starter = reports[0]
        found.starter_fails = not starter.passed
        if starter.passed:
            found.problems.append(f"the starter {_rel(course, challenge.starter)} passes every test")
    else:
        found.problems.append(f"no starter: write {_rel(course, challenge.starter)}")
    if found.reference_passes:  # else the broken reference is the cause, and is said already
        for path, report in zip([*starter_files, *wrong_files], reports, strict=True):
            found.problems += grader_troubles(report, _rel(course, path))
    wrong_reports = reports[len(starter_files) :]
    wrong = [checks.check_wrong(p, r, suite) for p, r in zip(wrong_files, wrong_reports, strict=True)]
    found.wrong = tuple(wrong)
    where = _rel(course, challenge.folder / "wrong")
    for result in wrong:
        if not result.caught:
            found.problems.append(f"{where}/{result.file} passes every test")
        for name in result.not_caught_by:
            found.problems.append(f"{where}/{result.file} passes {name}, which its caught-by line names")
        for name in result.unknown:
            found.problems.append(f"{where}/{result.file} names {name!r} in caught-by: no such test")
        if result.stray_hints:
            by_hint: dict[str, list[str]] = {}
            for name, hint in result.stray_hints:
                by_hint.setdefault(hint, []).append(name)
            shown = "; ".join(f"{h!r} by {', '.join(names)}" for h, names in by_hint.items())
            found.problems.append(
                f"{where}/{result.file} is shown hints about other mistakes: {shown}. A test "
                "should check in parts, each with the hint of what it checks; if a hint does fit "
                "this mistake, name its test in the file's caught-by line"
            )


def _check_oracle_free(course: Course, found: _Findings, judge: Judge, reference: Path) -> None:
    """Each test makes the same calls into the reference as into any other answer (or stops early).

    One problem for each test that branches, naming it, the first file it branches for
    and the call that differs.
    """
    challenge = found.challenge
    others = _starter_and_wrong(challenge)
    traces = judge.trace(challenge.slug, [reference, *others])
    if traces[0] is None:
        return  # the reference did not load: said already
    named: set[str] = set()
    for path, trace in zip(others, traces[1:], strict=True):
        if trace is None:
            continue
        for branch in branching(traces[0], trace):
            if branch.test not in named:
                named.add(branch.test)
                found.problems.append(describe(branch, _rel(course, path)))


def _check_shared_state(course: Course, found: _Findings, judge: Judge, reference: Path) -> None:
    """Tests that say they share no state do not (:mod:`~menace_course.authoring.state`).

    On the reference, the starter and every wrong solution: one problem for each test that
    changed its module's state (naming the first file), and one for each file whose verdicts
    change when known tests are skipped.
    """
    challenge = found.challenge
    files = [reference, *_starter_and_wrong(challenge)]
    said = "says its tests share no state (TESTS_SHARE_NO_STATE)"
    named: set[str] = set()
    for path, writes in zip(files, judge.writes(challenge.slug, files), strict=True):
        if writes is None and path == reference:
            found.problems.append(
                f"the tests could not be run on {_rel(course, path)} to see what they change, but their "
                f"module {said}"
            )
        for write in writes or ():
            test, names = write.split(": ", 1)
            if test not in named:
                named.add(test)
                found.problems.append(
                    f"test {test} changed {names} when checking {_rel(course, path)}, but its module "
                    f"{said}: keep nothing between tests, or remove that line"
                )
    skipping = judge.check(challenge.slug, files)
    running = judge.check(challenge.slug, files, skip_known=False)
    for path, skipped, ran in zip(files, skipping, running, strict=True):
        differ = [a[0] for a, b in zip(_verdicts(skipped), _verdicts(ran), strict=False) if a != b]
        if differ or len(skipped.tests) != len(ran.tests):
            found.problems.append(
                f"{_rel(course, path)} gets other verdicts on {', '.join(differ) or 'its tests'} when the "
                f"tests whose replies are all the reference's do not run, but their module {said}: "
                "a test depends on another, so remove that line"
            )


def _starter_and_wrong(challenge: Challenge) -> list[Path]:
    """The challenge's starter (when it has one) and its known wrong solutions, in order."""
    starter = [challenge.starter] if challenge.starter.is_file() else []
    return [*starter, *sorted((challenge.folder / "wrong").glob("*.py"))]


def _verdicts(report: SubmissionReport) -> list[tuple[str, str, float, str | None, str | None]]:
    """Each test's name, outcome, points, problem and hint: what a student is told of it."""
    return [
        (t.name, t.outcome.value, t.points, t.detail.problem if t.detail else None, t.hint)
        for t in report.tests
    ]


def _check_free_attempts(found: _Findings, judge: Judge) -> None:
    """No points for nothing: do-nothing files score 0, examples-only files a third at most.

    One problem for each kind of file that scores too much, naming the one that scores most.
    """
    challenge = found.challenge
    results = []
    attempts = free_attempts(challenge)
    name = f"{challenge.slug}.py"
    reports = judge.check(challenge.slug, [(name, a.source.encode("utf-8")) for a in attempts])
    for attempt, report in zip(attempts, reports, strict=True):
        passed = tuple(t.name for t in report.tests if t.outcome is Outcome.PASSED)
        results.append(
            FreeResult(attempt.label, attempt.kind, report.score, report.max_score, attempt.most, passed)
        )
    found.free = tuple(results)
    for kind_of_file, what in (
        (
            "does_nothing",
            "a test that passes for a function that does nothing must also check the value it gives back",
        ),
        (
            "examples_only",
            "test the rules on inputs the printed examples do not show, and check values, not only kinds",
        ),
    ):
        failing = [r for r in results if r.kind == kind_of_file and not r.ok]
        if not failing:
            continue
        worst = max(failing, key=lambda r: r.score)
        limit = "0" if worst.most == 0 else f"at most {worst.most * worst.max_score:.3g} (a third)"
        found.problems.append(
            f"points for nothing: a {challenge.function} that {worst.label} scores "
            f"{worst.score:g}/{worst.max_score:g}, where it may score {limit}; it passes "
            f"{', '.join(worst.passed_tests)}: {what}"
        )


def _check_public_files(course: Course, found: _Findings, judge: Judge) -> None:
    """No file students receive may earn more than a third of the challenge: one problem for each."""
    challenge = found.challenge
    passing = []
    files = [
        (label, text)
        for label, text in public_files(course).items()
        if not label.startswith(f"the {challenge.slug} starter ") and defines(text, challenge.function)
    ]
    name = f"{challenge.slug}.py"
    reports = judge.check(challenge.slug, [(name, text.encode("utf-8")) for _, text in files])
    for (label, _), report in zip(files, reports, strict=True):
        if report.max_score and report.score > report.max_score / 3:
            passing.append(PublicPass(label, report.score, report.max_score))
            found.problems.append(
                f"a file students receive earns more than a third of it: {label} scores "
                f"{report.score:g}/{report.max_score:g} (at most {report.max_score / 3:.3g}). Handing it "
                f"in would earn points for copying: test what it does not do, or give students "
                f"something else"
            )
    found.public_passing = tuple(passing)


def _check_mutants(
    course: Course,
    found: _Findings,
    judge: Judge,
    path: Path,
    progress: ProgressFactory | None,
) -> MutantScore | None:
    settings = checks.mutation_settings(found.challenge)
    found.problems += list(settings.problems)
    if not found.reference_passes:
        found.problems.append("mutants were not run: the reference must pass first")
        return None
    mutants = generate_mutants(path.read_text(encoding="utf-8"), settings.only)
    ids = {m.id for m in mutants}
    for stale in sorted(set(settings.equivalent) - ids):
        found.problems.append(
            f"equivalent_mutants names {stale}, which is no mutant of the reference now "
            "(did the reference change? the ids are in the survivors list)"
        )
    with _progress(progress, len(mutants), f"mutants of {found.challenge.slug}") as tick:
        verdicts = judge.judge_all(found.challenge.slug, mutants, tick)
    score = MutantScore.from_verdicts(mutants, verdicts, settings.equivalent, settings.threshold)
    if not score.passes:
        found.problems.append(
            f"the tests kill {score.killed} of {score.total} mutants ({score.percent:.0f} %), "
            f"below the threshold of {settings.threshold:.0%}: see the survivors"
        )
    return score


def grader_troubles(report: SubmissionReport, label: str) -> list[str]:
    """One line for each grader error in a report: a bug in a test (or in menace), never the file's."""
    lines = []
    for log in report.grader_log:
        last = log.strip().splitlines()[-1] if log.strip() else "?"
        first = log.strip().splitlines()[0] if log.strip() else ""
        where = first.removesuffix(":") if first.startswith("test ") else "the grader"
        lines.append(f"{label}: {where} failed on its own ({last}): fix the test, then validate again")
    return lines


def _progress(factory: ProgressFactory | None, total: int, label: str) -> AbstractContextManager[Tick]:
    if factory is not None:
        return factory(total, label)
    return nullcontext(_nothing)


def _nothing() -> None:
    """The tick of no progress bar."""


def _rel(course: Course, path: Path) -> str:
    try:
        return str(path.relative_to(course.root))
    except ValueError:
        return str(path)


def _result(found: _Findings, score: MutantScore | None) -> ChallengeResult:
    return ChallengeResult(
        slug=found.challenge.slug,
        title=found.challenge.title,
        reference_passes=found.reference_passes,
        reference_failures=found.reference_failures,
        starter_fails=found.starter_fails,
        examples_agree=found.examples_agree,
        hints_missing=found.hints_missing,
        hidden_tests=found.hidden_tests,
        wrong=found.wrong,
        free=found.free,
        public_passing=found.public_passing,
        deterministic=found.deterministic,
        seconds=found.seconds,
        budget_seconds=found.challenge.limits.budget_seconds,
        mutants=score,
        problems=tuple(found.problems),
    )
