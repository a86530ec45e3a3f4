"""The results model: what checking one submission found, as frozen, typed, plain data.

This is the waist of the package. Loading, sandboxing and testing produce a
:class:`SubmissionReport`; feedback, JSON, class reports and LMS exports read one and
never call back. It imports only the standard library (a test enforces that), and
:meth:`SubmissionReport.to_dict` / :meth:`SubmissionReport.from_dict` are the documented
JSON schema of ``menace check --format json`` (see ``docs/json-schema.md``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal

SCHEMA_VERSION = 1

#: Which sandbox runs a submission: bubblewrap (isolated) or a plain child process.
SandboxKind = Literal["bwrap", "process"]
#: Why an entry (a file or folder handed in) has nothing to grade (see ``checking.entry``).
EntryProblemCode = Literal["empty", "no_python_file", "no_function", "unreadable"]


class Outcome(enum.StrEnum):
    """How one test ended. Exactly one per test; never ``None``."""

    PASSED = "passed"
    FAILED = "failed"  #: the function gave a wrong answer (or the wrong kind of answer)
    ERROR = "error"  #: the student's code raised, stopped Python, or gave back a value too large to check
    TIMEOUT = "timeout"  #: the call did not finish in time
    SKIPPED = "skipped"  #: not run: the file could not load, or an earlier problem blocks it
    GRADER_ERROR = "grader_error"  #: the test itself failed (our fault, never the student's)


class Problem(enum.StrEnum):
    """What kind of problem a failed test or a file that did not load had (``Detail.problem``).

    Every code has its words in ``feedback_templates/words.j2`` and its line in
    ``docs/json-schema.md``; ``tests/core/test_vocabulary.py`` checks both.
    """

    # what a test found wrong with the value given back
    DIFFERENT = "different"  #: a different value
    WRONG_TYPE = "wrong_type"  #: the wrong kind of value (a tuple for a list, ...)
    CHANGED_INPUT = "changed_input"  #: the function changed an argument it was given
    BROKEN_RULE = "broken_rule"  #: a rule every answer must keep does not hold
    FLAKY = "flaky"  #: different answers for the same input
    # what a call did
    RAISED = "raised"  #: the student's code raised an exception
    TIMEOUT = "timeout"  #: it did not finish in time
    CRASHED = "crashed"  #: it stopped Python itself
    TOO_LARGE = "too_large"  #: what it gave back was over the cap on one reply from the sandbox
    MEMORY = "memory"  #: it used more memory than allowed
    RECURSION = "recursion"  #: it called itself without end
    MISSING = "missing"  #: the function is not defined
    SIGNATURE = "signature"  #: the function cannot take the challenge's arguments
    BUDGET = "budget"  #: not called: the time for the whole file ran out
    DEAD = "dead"  #: not called: the function timed out or crashed too often before
    # what stopped the file while it loaded (with raised, timeout, crashed, memory, recursion)
    SYNTAX = "syntax"  #: Python could not parse it
    INPUT = "input"  #: it asked for input
    EXIT = "exit"  #: it ended the program
    IMPORT = "import"  #: it imported a module that is not there
    NOTHING = "nothing"  #: the file has no code at all (only comments, blank lines, a docstring)
    # ours
    GRADER = "grader"  #: the grader or the test failed: not the student's mistake


class ErrorKind(enum.StrEnum):
    """The builtin exceptions a hidden test may name to a student: a fixed list, decided in the parent.

    The child sends the class name of whatever student code raised, and the student can
    name a class anything (``type("LEAK" + repr(args), (Exception,), {})``). So the name
    that reaches a student from a hidden test is never the child's string: it is one of
    these members, or nothing ("raised an exception"). :meth:`of` is the only mapping.
    A student's own class called ``IndexError`` still shows as ``IndexError``: that is one
    of these names, chosen among them, and ``docs/json-schema.md`` counts it as such.
    """

    ASSERTION = "AssertionError"
    ATTRIBUTE = "AttributeError"
    EOF = "EOFError"
    EXCEPTION = "Exception"
    IMPORT = "ImportError"
    INDEX = "IndexError"
    KEY = "KeyError"
    MEMORY = "MemoryError"
    MODULE_NOT_FOUND = "ModuleNotFoundError"
    NAME = "NameError"
    NOT_IMPLEMENTED = "NotImplementedError"
    OS = "OSError"
    OVERFLOW = "OverflowError"
    RECURSION = "RecursionError"
    RUNTIME = "RuntimeError"
    STOP_ITERATION = "StopIteration"
    SYSTEM_EXIT = "SystemExit"
    TYPE = "TypeError"
    UNBOUND_LOCAL = "UnboundLocalError"
    VALUE = "ValueError"
    ZERO_DIVISION = "ZeroDivisionError"

    @classmethod
    def of(cls, type_name: str | None) -> ErrorKind | None:
        """The member spelled exactly ``type_name``, or None for any other name (or none).

        >>> ErrorKind.of("IndexError"), ErrorKind.of("IndexError2"), ErrorKind.of(None)
        (<ErrorKind.INDEX: 'IndexError'>, None, None)
        """
        if type(type_name) is not str:
            return None
        try:
            return cls(type_name)
        except ValueError:
            return None


#: How a call to the student's function ended (``sandbox.outcomes.CallOutcome.status``).
CallStatus = Literal["returned", "raised", "timeout", "crashed", "missing", "budget", "dead"]
#: How loading the student's file in the child ended (``sandbox.outcomes.LoadOutcome.status``).
LoadStatus = Literal["ready", "raised", "timeout", "crashed"]


class Verdict(enum.StrEnum):
    """One word for how a graded submission did (the ``grading.status`` of a record, ``grades.csv``)."""

    PASSED = "passed"  #: every test ran and passed
    FAILED = "failed"  #: the tests ran; some did not pass
    EMPTY = "empty"  #: nothing was handed in
    NO_PYTHON_FILE = "no_python_file"  #: no .py or .ipynb file was handed in
    NO_FUNCTION = "no_function"  #: no file defines the function
    UNREADABLE = "unreadable"  #: the file could not be read
    SYNTAX_ERROR = "syntax_error"  #: Python could not parse it
    LOAD_ERROR = "load_error"  #: loading it raised, timed out or stopped Python
    BAD_SIGNATURE = "bad_signature"  #: the function cannot take the challenge's arguments
    #: a time limit stopped it (the whole check, or a call) and no test found a wrong answer
    TIMEOUT = "timeout"
    GRADER_ERROR = "grader_error"  #: the grader failed: not the student's fault (instructor: see why)


class TestKind(enum.StrEnum):
    """Where a test comes from, which decides how much of it a student may see."""

    EXAMPLE = "example"  #: a visible example from the challenge text: shown in full
    HIDDEN = "hidden"  #: a hidden test: name and hint only
    PROPERTY = "property"  #: a property checked on generated inputs (hidden unless marked visible)


class Status(enum.StrEnum):
    """How far checking a submission got."""

    CHECKED = "checked"  #: the tests ran (whatever they found)
    UNREADABLE = "unreadable"  #: the file could not be read (missing, binary, wrong encoding, too big)
    SYNTAX_ERROR = "syntax_error"  #: Python could not parse it
    LOAD_ERROR = "load_error"  #: loading it raised, timed out or stopped Python
    NO_FUNCTION = "no_function"  #: the challenge's function is not defined
    BAD_SIGNATURE = "bad_signature"  #: the function cannot take the challenge's arguments
    TIMEOUT = "timeout"  #: checking it took longer than a submission may take, and was stopped
    GRADER_ERROR = "grader_error"  #: our fault: the student sees a generic message


@dataclass(frozen=True)
class Line:
    """One line of the student's own code in a traceback or a syntax error."""

    line: int  #: in a notebook, the line within its cell
    function: str
    code: str
    repeats: int = 1
    column: int = 0
    cell: int | None = None  #: a notebook's cell, counted from 1 at the top (None for a .py file)


@dataclass(frozen=True)
class Detail:
    """What a visible failure shows: every text here is already a ``repr`` made in the grader.

    A hidden test's detail never holds its inputs or expected values (``call``, ``expected``,
    ``got``... stay None); it keeps the problem and what the child said (``error_type``,
    ``error_message``, ``traceback``, ``printed``) for the instructor. A student sees only the
    problem and a builtin kind of it (:func:`menace_course.student_view.student_view`).
    """

    problem: Problem  #: what kind of failure (see :class:`Problem`)
    call: str | None = None  #: the exact call a student can paste
    expected: str | None = None
    got: str | None = None
    got_type: str | None = None  #: type name of what came back, when it matters
    first_difference: str | None = None  #: e.g. "position 4"
    argument_after: str | None = None  #: an input as it was after the call
    printed: str | None = None  #: what the call printed (capped, as the student wrote it)
    error_type: str | None = None
    error_message: str | None = None
    traceback: tuple[Line, ...] = ()
    note: str | None = None  #: any further plain fact, e.g. "the smallest failing input"


@dataclass(frozen=True)
class TestResult:
    """The result of one test of one challenge."""

    __test__ = False  # not a pytest test class

    name: str  #: stable id, e.g. ``loss_on_empty_square_stays_at_zero``
    title: str  #: one readable line (the test's docstring)
    kind: TestKind
    outcome: Outcome
    message: str  #: one plain line on what happened, safe to show for hidden tests too
    points: float
    max_points: float
    hint: str | None = None  #: a template id in ``feedback_templates/hints/``
    is_visible: bool = True
    detail: Detail | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class LoadProblem:
    """Why no test could run: the file's own problem, described for the student."""

    message: str
    detail: Detail | None = None
    functions_found: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    """A sign that a submission reached into the grader, or tried to: never a clean pass.

    ``source`` is ``code`` (seen in the file by reading it, not running it) or ``sandbox``
    (tried while it ran: refused or noticed by the sandbox's guard, or a message to the
    grader that the harness did not write). ``what`` says it in the instructor's words.
    """

    source: str
    what: str
    line: int = 0  #: where in the file, for ``code`` findings (0: not known)


@dataclass(frozen=True)
class SubmissionReport:
    """Everything known about one submission checked against one challenge."""

    challenge: str
    title: str
    function: str
    file: str
    sandbox: str  #: ``bwrap`` or ``process``
    status: Status
    tests: tuple[TestResult, ...]
    score: float
    max_score: float
    load_problem: LoadProblem | None = None
    hidden_not_run: tuple[str, ...] = ()  #: titles of hidden tests this course copy lacks
    printed_at_load: str | None = None
    notices: tuple[str, ...] = ()  #: plain facts worth knowing, e.g. the file's encoding
    seconds: float = 0.0
    suite_hash: str = ""
    version: str = ""
    hypothesis_version: str = ""  #: the hypothesis that ran the hidden tests ("" when none ran)
    schema: int = SCHEMA_VERSION
    student: str | None = None
    #: The names of the function's arguments, as the challenge gives them (for advice that names them).
    params: tuple[str, ...] = ()
    #: Signs of tampering with the grader: the report is then never a pass ("needs review").
    integrity: tuple[Finding, ...] = ()
    #: The grader's own tracebacks when it failed (status or a test ``grader_error``). For the
    #: instructor only: never in :meth:`to_dict`, so never in what a student is shown.
    grader_log: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def passed(self) -> bool:
        """True when the file loaded and every test of the challenge ran and passed.

        False in a student's kit, where the hidden tests have not run (``hidden_not_run``):
        passing the examples alone is not passing the challenge. False too when the
        submission tampered with the grader, or tried to (:attr:`needs_review`).
        """
        return (
            self.status is Status.CHECKED
            and not self.hidden_not_run
            and not self.integrity
            and all(t.outcome is Outcome.PASSED for t in self.tests)
        )

    @property
    def needs_review(self) -> bool:
        """True when the submission reached into the grader, or tried to (see ``integrity``)."""
        return bool(self.integrity)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (the documented schema)."""
        data: dict[str, Any] = _plain(self)
        del data["grader_log"]
        data["passed"] = self.passed
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SubmissionReport:
        """Rebuild a report from :meth:`to_dict` output."""
        values = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        values["status"] = Status(data["status"])
        values["tests"] = tuple(_test_from_dict(t) for t in data.get("tests", []))
        values["hidden_not_run"] = tuple(data.get("hidden_not_run", ()))
        values["notices"] = tuple(data.get("notices", ()))
        values["params"] = tuple(str(p) for p in data.get("params", ()))
        values["integrity"] = tuple(Finding(**f) for f in data.get("integrity", ()))
        if data.get("load_problem"):
            problem = data["load_problem"]
            values["load_problem"] = LoadProblem(
                message=problem["message"],
                detail=_detail_from_dict(problem.get("detail")),
                functions_found=tuple(problem.get("functions_found", ())),
            )
        return cls(**values)


def _plain(value: Any) -> Any:
    """``value`` as JSON-ready data: a dataclass as a dict of its fields, an enum as its value,
    a tuple as a list, all the way down (what ``dataclasses.asdict`` and a walk for the enums
    gave, in one walk and without asdict's deep copies: a report is read on every check)."""
    if isinstance(value, enum.Enum):
        return value.value
    names = _FIELD_NAMES.get(type(value))
    if names is None and is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES[type(value)] = tuple(f.name for f in fields(value))
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


#: The field names of each dataclass :func:`_plain` has met, in order.
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _detail_from_dict(data: dict[str, Any] | None) -> Detail | None:
    if not data:
        return None
    values = dict(data)
    values["problem"] = Problem(data["problem"])
    values["traceback"] = tuple(Line(**line) for line in data.get("traceback", ()))
    return Detail(**values)


def _test_from_dict(data: dict[str, Any]) -> TestResult:
    values = dict(data)
    values["kind"] = TestKind(data["kind"])
    values["outcome"] = Outcome(data["outcome"])
    values["detail"] = _detail_from_dict(data.get("detail"))
    return TestResult(**values)
