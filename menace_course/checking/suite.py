"""Collect a challenge's tests: its visible examples and its hidden test functions.

Each becomes a :class:`Case`: a name, how it is shown, and a function that takes the
``submission`` proxy and raises when the student's function is wrong. Hidden test modules
are pytest files (``hidden_tests/<slug>/test_*.py``) of plain test functions; they are
imported here, in the trusted grader, and their ``test_*`` functions run in the order they
are written. What pytest would run and this runner would not (a test class, a fixture,
``@pytest.mark.parametrize`` or any other mark, an ``async`` test, a ``conftest.py`` of the
challenge's own) is refused, naming the file and line (:func:`unsupported_forms`): a test
is never silently dropped, nor a grader error for every student.
A student's kit has no hidden tests, only ``challenges/<slug>/hidden.json`` with their
names and hints, so the student can be told what will be checked later.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from menace_course import __version__, extras
from menace_course.catalog import Challenge, Example
from menace_course.checking.answers import ANSWER_SHAPE_ERRORS, answer_broke_the_test
from menace_course.checking.compare import clone
from menace_course.checking.importing import import_file
from menace_course.checking.replay import ExampleStore, can_replay, replaying
from menace_course.checking.standin import NeedsHypothesis, standin_import
from menace_course.checking.testing import (
    SHARES_NO_STATE,
    UnusableAnswer,
    course_references,
    expect_equal,
    expect_unchanged,
    marks_of,
    with_grading_settings,
)
from menace_course.course import Course
from menace_course.errors import CourseError
from menace_course.models import TestKind

#: The manifest a kit carries in place of hidden test code.
HIDDEN_MANIFEST = "hidden.json"


@dataclass(frozen=True)
class Case:
    """One test to run against a submission."""

    name: str
    title: str
    kind: TestKind
    is_visible: bool
    hint: str | None
    points: float
    run: Callable[[Any], None]
    #: its module says its tests share no state (:data:`~menace_course.checking.testing.SHARES_NO_STATE`)
    shares_no_state: bool = False
    #: the module it is written in (None for a challenge's examples)
    module: ModuleType | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Suite:
    """All of a challenge's tests, and what identifies this version of them."""

    challenge: Challenge
    cases: tuple[Case, ...]
    hidden_not_run: tuple[str, ...]
    suite_hash: str


def call_text(function: str, args: tuple[Any, ...]) -> str:
    """The call as a student would type it: ``after_game([4, 4, 0], 4, 'win')``."""
    return f"{function}({', '.join(repr(a) for a in args)})"


def _example_case(challenge: Challenge, index: int, example: Example) -> Case:
    def run(submission: Any) -> None:
        got = getattr(submission, challenge.function)(*clone(example.args))
        # The example's own hint speaks of its value; a wrong kind of value gets the rules.
        kind_wrong = type(got) is not type(example.expected)
        expect_equal(got, example.expected, hint=challenge.example_hint if kind_wrong else None)
        if challenge.pure:
            expect_unchanged()

    return Case(
        name=f"example_{index}",
        title=f"Example {index}: {call_text(challenge.function, example.args)}",
        kind=TestKind.EXAMPLE,
        is_visible=True,
        hint=example.hint or challenge.example_hint,
        points=1.0,
        run=run,
    )


def _first_line(function: Any) -> int:
    inner = getattr(getattr(function, "hypothesis", None), "inner_test", function)
    return int(getattr(getattr(inner, "__code__", None), "co_firstlineno", 0))


def _in_course(references: Path, run: Callable[[Any], None]) -> Callable[[Any], None]:
    """``run``, with :func:`reference` loading from this course's references while it runs; a
    test whose code fails on an answer unlike the reference's is the student's failure
    (:mod:`~menace_course.checking.answers`)."""

    def in_course(submission: Any) -> None:
        with course_references(references):
            try:
                run(submission)
            except ANSWER_SHAPE_ERRORS as error:
                if answer_broke_the_test(error, submission):
                    raise UnusableAnswer(error) from error
                raise

    return in_course


class UnsupportedTests(CourseError):
    """Hidden test files use what pytest runs but the grader does not: each is named, file:line."""

    def __init__(self, problems: list[str]) -> None:
        """Keep every problem, one line each."""
        super().__init__("the hidden tests use what the grader does not run:\n" + "\n".join(problems))
        self.problems = problems


#: Advice for each pytest mark a hidden test may carry, by the mark's name.
_MARK_ADVICE = {
    "parametrize": "loop over the cases inside the test, or use @given with @example for each case",
    "skip": "remove the test (or the mark): every test runs for every student",
    "skipif": "remove the mark: every test runs for every student",
    "xfail": "remove the test (or the mark): a test that is expected to fail gives no points",
    "usefixtures": "the grader has no fixtures: build what the test needs inside it",
    "filterwarnings": "remove the mark (use warnings.catch_warnings inside the test)",
    "timeout": "remove the mark: the challenge's [limits] bound every call",
}


def unsupported_forms(path: Path, root: Path | None = None) -> list[str]:
    """What in a hidden test file pytest would run but the grader would not: one line each.

    The grader runs module-level functions ``test_*(submission)`` (with ``@given``'s
    arguments for a property), marked with menace's ``@hint``, ``@points`` and
    ``@visible``; hypothesis' ``@given``, ``@example`` and ``@settings``. Everything else
    that pytest collects is named here, as ``file:line: what; what to do``.
    """
    shown = _shown_path(path, root)
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError:
        return []  # importing it says where, better than this could
    problems = []
    for node in tree.body:
        where = f"{shown}:{node.lineno}"
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            problems.append(
                f"{where}: class {node.name}: a test class is not run by the grader; "
                "write its tests as module-level functions test_...(submission)"
            )
        elif isinstance(node, ast.Assign | ast.AnnAssign) and "pytestmark" in _targets(node):
            problems.append(f"{where}: pytestmark: marks are not run by the grader; remove it")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            problems += _function_problems(node, shown)
    return problems


def _shown_path(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return str(path.relative_to(root))
        except ValueError:
            pass
    return str(path)


def _targets(node: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _dotted(node: ast.expr) -> str:
    """``pytest.mark.parametrize`` for the decorator ``@pytest.mark.parametrize(...)``."""
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _parametrized_names(mark: ast.Call) -> set[str]:
    """The argument names ``@pytest.mark.parametrize("a, b", ...)`` gives a test."""
    first = mark.args[0] if mark.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return {n.strip() for n in first.value.split(",") if n.strip()}
    if isinstance(first, ast.List | ast.Tuple):
        return {e.value for e in first.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def _function_problems(node: ast.FunctionDef | ast.AsyncFunctionDef, shown: str) -> list[str]:
    problems = []
    given: set[str] = set()
    given_by_position = 0
    for decorator in node.decorator_list:
        dotted = _dotted(decorator)
        where = f"{shown}:{decorator.lineno}"
        if dotted in ("pytest.fixture", "fixture") or dotted.startswith("pytest.fixture."):
            problems.append(
                f"{where}: fixture {node.name}: the grader has no fixtures but submission; "
                "make it a plain function the tests call"
            )
        elif dotted.startswith(("pytest.mark.", "mark.")):
            mark = dotted.split(".")[-1]
            if mark == "parametrize" and isinstance(decorator, ast.Call):
                given |= _parametrized_names(decorator)  # said once, by the mark
            advice = _MARK_ADVICE.get(mark, "remove the mark: the grader runs no pytest marks")
            problems.append(f"{where}: @pytest.mark.{mark} on {node.name} is not run by the grader; {advice}")
        elif dotted.split(".")[-1] == "given" and isinstance(decorator, ast.Call):
            given |= {k.arg for k in decorator.keywords if k.arg}
            given_by_position += len(decorator.args)
    if not node.name.startswith("test_"):
        return problems
    where = f"{shown}:{node.lineno}"
    if isinstance(node, ast.AsyncFunctionDef):
        problems.append(f"{where}: async def {node.name}: the grader does not run async tests; make it a def")
    names = [a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]]
    rest = names[1:] if names[:1] == ["submission"] else names
    by_position = rest[len(rest) - given_by_position :] if given_by_position else []
    fixtures = [n for n in rest if n not in given and n not in by_position]
    if names[:1] != ["submission"] and "submission" not in given:
        problems.append(f"{where}: {node.name} must take submission as its first argument")
    elif fixtures:
        problems.append(
            f"{where}: {node.name} asks for {', '.join(fixtures)}: pytest fixtures, which the grader "
            "does not provide (a test takes submission, and @given's arguments)"
        )
    return problems


def _hidden_cases(folder: Path, store: ExampleStore, references: Path) -> list[Case]:
    """The hidden tests' cases: replayed without hypothesis when every example is stored.

    A hidden test module is first imported with the hypothesis stand-in
    (:mod:`~menace_course.checking.standin`); when it asks for more than the stand-in
    answers, or a property test has no stored examples yet, it is imported with hypothesis
    itself, which generates and stores them. The cases are the same either way.
    """
    problems = []
    if (folder / "conftest.py").is_file():
        problems.append(
            f"{_shown_path(folder / 'conftest.py', references.parent)}: a challenge's own conftest.py "
            "is not read by the grader; put its helpers in the test file"
        )
    for path in sorted(folder.glob("test_*.py")):
        problems += unsupported_forms(path, references.parent)
    if problems:
        raise UnsupportedTests(problems)
    cases = []
    for path in sorted(folder.glob("test_*.py")):
        try:
            cases += _module_cases(path, store, references, standin=True)
        except NeedsHypothesis:
            cases += _module_cases(path, store, references, standin=False)
    return cases


def _module_cases(path: Path, store: ExampleStore, references: Path, *, standin: bool) -> list[Case]:
    """One hidden test module's cases, in the order its tests are written.

    Raises:
        NeedsHypothesis: with ``standin``, when the module needs hypothesis itself.
    """
    try:
        module = import_file(path, importer=standin_import if standin else None)
    except NeedsHypothesis:
        raise
    except Exception:
        if not standin:
            raise
        raise NeedsHypothesis(f"{path.name} did not import with the stand-in") from None
    tests = [(n, f) for n, f in vars(module).items() if n.startswith("test_") and callable(f)]
    shares_no_state = getattr(module, SHARES_NO_STATE, False) is True
    cases = []
    for name, function in sorted(tests, key=lambda item: _first_line(item[1])):
        marks = marks_of(function)
        is_property = hasattr(function, "hypothesis")
        is_visible = bool(marks.get("visible", False))
        real = _real_test(path, name)
        if is_property and not standin:
            function = with_grading_settings(function)
        run: Callable[[Any], None] = _or_for_real(function, real) if standin else function
        if is_property and can_replay(function):
            key = f"{path.name}::{name}"
            examples = store.stored(key) if standin else store.examples(key, function)
            if examples is None:
                raise NeedsHypothesis(f"no stored examples for {key}")
            run = replaying(function, examples, is_visible, real)
        elif is_property and standin:
            raise NeedsHypothesis(f"{name} cannot be replayed")
        doc = inspect.getdoc(
            (getattr(function, "hypothesis", None) and function.hypothesis.inner_test) or function
        )
        cases.append(
            Case(
                name=name.removeprefix("test_"),
                title=(doc or name.removeprefix("test_").replace("_", " ")).splitlines()[0].rstrip("."),
                kind=TestKind.PROPERTY if is_property else TestKind.HIDDEN,
                is_visible=is_visible,
                hint=marks.get("hint"),
                points=float(marks.get("points", 1.0)),
                run=_in_course(references, run),
                shares_no_state=shares_no_state,
                module=module,
            )
        )
    return cases


def _real_test(path: Path, name: str) -> Callable[[], Any]:
    """The test ``name`` of ``path`` as hypothesis defines it, imported when first asked for."""

    def real() -> Any:
        function = getattr(import_file(path), name)
        return with_grading_settings(function) if hasattr(function, "hypothesis") else function

    return real


def _or_for_real(function: Callable[[Any], None], real: Callable[[], Any]) -> Callable[[Any], None]:
    """A plain hidden test from the stand-in module, run for real if its body needs hypothesis."""

    def run(submission: Any) -> None:
        try:
            function(submission)
        except NeedsHypothesis:
            real()(submission)

    return run


def _hash_files(paths: list[Path]) -> str:
    digest = hashlib.sha256(__version__.encode())
    for path in paths:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def collect(course: Course, challenge: Challenge) -> Suite:
    """Gather every test of ``challenge`` in this course, hidden ones if the course has them."""
    cases = [_example_case(challenge, i, e) for i, e in enumerate(challenge.examples, start=1)]
    hidden_folder = course.hidden_tests_dir / challenge.slug
    hidden_not_run: tuple[str, ...] = ()
    hidden_files: list[Path] = []
    if hidden_folder.is_dir():
        # Hidden tests are hypothesis tests: without it, one line says what to install.
        extras.require("grader", f"running the hidden tests of {challenge.slug}")
        hidden_files = sorted(hidden_folder.glob("*.py"))
        store = ExampleStore(_hash_files([*hidden_files, course.reference_dir / f"{challenge.slug}.py"]))
        with course_references(course.reference_dir):
            cases += _hidden_cases(hidden_folder, store, course.reference_dir)
        store.save()
    else:
        manifest = challenge.folder / HIDDEN_MANIFEST
        if manifest.is_file():
            entries = json.loads(manifest.read_text(encoding="utf-8"))
            hidden_not_run = tuple(str(e["title"]) for e in entries)
    files = [
        challenge.folder / "challenge.toml",
        *hidden_files,
        course.reference_dir / f"{challenge.slug}.py",
    ]
    return Suite(challenge, tuple(cases), hidden_not_run, _hash_files(files))


def suite_files(course: Course, slug: str) -> list[Path]:
    """Every file a challenge's suite is made from: its challenge.toml, hidden tests and reference."""
    folder = course.challenges_dir / slug
    hidden = course.hidden_tests_dir / slug
    return [
        folder / "challenge.toml",
        folder / HIDDEN_MANIFEST,
        *(sorted(hidden.glob("*.py")) if hidden.is_dir() else []),
        course.reference_dir / f"{slug}.py",
    ]


def fingerprint(course: Course, slug: str) -> str:
    """A digest of the content of :func:`suite_files`: it changes whenever one of them does."""
    digest = hashlib.sha256()
    for path in suite_files(course, slug):
        try:
            data = path.read_bytes()
        except OSError:
            data = b"\xff(absent)"  # never the content of a file that is there
        digest.update(str(path).encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


class Suites:
    """A process's suites: the one place a process keeps suites, and the maximum scores.

    A suite is collected once and given again while the files it was made from are
    unchanged. When an instructor edits a hidden test, the challenge.toml or the
    reference, the next :meth:`get` collects the suite afresh: no restart is needed.
    The maximum score (:meth:`maximum`) is the same suite's, so what the gradebook is
    told full marks are follows the edit too.

    With ``follow_edits=False`` (one run's suites, :data:`RUN_SUITES`) the first suite
    collected is kept for the whole run, so that a batch grades every student with the same
    tests. A process has these two instances only (``tests/core/test_architecture.py``
    keeps them the only ones); a lock makes them safe to ask from a web server's threads.

    Example:
        suite = SUITES.get(course, "after_game")  # collected
        suite = SUITES.get(course, "after_game")  # the same, until a file changes
        SUITES.maximum(course, "after_game")  # 15.0: the points of all its tests
    """

    def __init__(self, *, follow_edits: bool = True) -> None:
        """An empty cache; with ``follow_edits``, a suite is collected again when its files change."""
        self._kept: dict[tuple[Path, str], tuple[str, Suite]] = {}
        self._follow_edits = follow_edits
        self._lock = threading.Lock()

    def get(self, course: Course, slug: str) -> Suite:
        """The suite of ``slug``, collected again if any of its files changed since the last call.

        Raises:
            UnknownChallenge: no challenge ``slug``.
            CourseError: its challenge.toml is malformed.
        """
        key = (course.root, slug)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and not self._follow_edits:
                return kept[1]
            now = fingerprint(course, slug) if self._follow_edits else ""
            if kept is not None and kept[0] == now:
                return kept[1]
            suite = load_suite(course, slug)
            self._kept[key] = (now, suite)
            return suite

    def forget(self) -> None:
        """Keep no suite: each is collected again when next asked for."""
        with self._lock:
            self._kept.clear()

    def collected(self) -> list[tuple[Path, str]]:
        """The course folder and slug of every suite kept, oldest first."""
        with self._lock:
            return list(self._kept)

    def maximum(self, course: Course, slug: str) -> float:
        """The challenge's maximum score: the points of all its tests (examples and hidden).

        Raises:
            UnknownChallenge: no challenge ``slug``.
            CourseError: its challenge.toml is malformed.
        """
        return float(sum(case.points for case in self.get(course, slug).cases))


#: The suites of a long-running process (a grader of ``menace serve``, its web process):
#: an edited hidden test is used at the next check, and its points in the next maximum.
SUITES = Suites()
#: One run's suites (a worker of ``menace grade``'s or ``menace validate``'s pool): kept
#: as first collected, so every submission of the run meets the same tests.
RUN_SUITES = Suites(follow_edits=False)


def load_suite(course: Course, slug: str) -> Suite:
    """The suite of the challenge ``slug`` of ``course`` (its examples, and hidden tests if any).

    Raises:
        UnknownChallenge: no challenge ``slug``.
        CourseError: its challenge.toml is malformed.
    """
    from menace_course.catalog import load_challenge

    return collect(course, load_challenge(course, slug))


def manifest_entries(suite: Suite) -> list[dict[str, Any]]:
    """What a kit may say about the hidden tests: names, titles and hints, nothing else."""
    return [
        {"name": c.name, "title": c.title, "kind": c.kind.value, "hint": c.hint, "points": c.points}
        for c in suite.cases
        if c.kind is not TestKind.EXAMPLE
    ]
