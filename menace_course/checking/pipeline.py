"""The one pipeline behind ``menace check`` and ``menace grade``, in a few plain steps.

    file ──read_submission──▶ Source ──(unreadable / syntax error?)──▶ report, nothing run
                                │
               Worker (sandboxed child) imports it ──(raised / hung / died?)──▶ report
                                │
               the function exists and takes the arguments? ──(no)──▶ report
                                │
               runner.run_cases(suite, proxy) ──▶ TestResults ──▶ SubmissionReport

``grade`` adds discovery, parallelism and resumption around :func:`check_source`.
"""

from __future__ import annotations

import difflib
import time
from dataclasses import replace

from menace_course import __version__
from menace_course.catalog import Challenge
from menace_course.checking.loader import Source
from menace_course.checking.notebook import in_cells, leave_out_failing_statement, with_note
from menace_course.checking.proxy import SubmissionProxy
from menace_course.checking.runner import run_cases
from menace_course.checking.suite import Suite
from menace_course.limits import Limits
from menace_course.models import (
    Detail,
    Line,
    LoadProblem,
    Outcome,
    SandboxKind,
    Status,
    SubmissionReport,
    TestResult,
)
from menace_course.sandbox.outcomes import LoadOutcome, SandboxFailure
from menace_course.sandbox.worker import Worker

#: Exceptions at load time that have advice of their own (see feedback_templates/words.j2).
LOAD_PROBLEMS = {
    "EOFError": "input",
    "SystemExit": "exit",
    "MemoryError": "memory",
    "ModuleNotFoundError": "import",
    "ImportError": "import",
}


def _skipped(suite: Suite, why: str) -> tuple[TestResult, ...]:
    return tuple(
        TestResult(
            name=c.name,
            title=c.title,
            kind=c.kind,
            outcome=Outcome.SKIPPED,
            message=why,
            points=0.0,
            max_points=c.points,
            is_visible=c.is_visible,
        )
        for c in suite.cases
    )


def _load_problem(load: LoadOutcome, name: str) -> LoadProblem:
    printed = load.printed.text or None
    if load.status == "timeout":
        detail = Detail(problem="timeout", printed=printed)
        return LoadProblem(
            f"{name} did not finish loading in time (code outside functions runs when it loads)",
            detail,
        )
    if load.status == "crashed":
        detail = Detail(problem="crashed", printed=printed, note=f"exit code {load.exit_code}")
        return LoadProblem(f"{name} stopped Python while it was loading", detail)
    exception = load.exception
    assert exception is not None
    frames = tuple(Line(**f.__dict__) for f in exception.frames)
    problem = LOAD_PROBLEMS.get(exception.type_name, "raised")
    detail = Detail(
        problem=problem,
        error_type=exception.type_name,
        error_message=exception.message,
        traceback=frames,
        printed=printed,
    )
    return LoadProblem(f"{name} stopped with an error while it was loading", detail)


def _function_problem(
    challenge: Challenge, functions: dict[str, dict[str, object]], name: str
) -> tuple[Status, LoadProblem] | None:
    defined = tuple(sorted(f for f, info in functions.items() if info.get("is_function", True)))
    info = functions.get(challenge.function)
    if info is None:
        close = difflib.get_close_matches(challenge.function, defined, n=1, cutoff=0.6)
        note = f"{close[0]!r} is defined instead" if close else None
        detail = Detail(problem="missing", note=note)
        return Status.NO_FUNCTION, LoadProblem(
            f"No function named {challenge.function} in {name}", detail, defined
        )
    low, high = info.get("min", 0), info.get("max")
    wanted = len(challenge.params)
    assert isinstance(low, int)
    if wanted < low or (isinstance(high, int) and wanted > high):
        params = info.get("params", [])
        got = (
            f"{challenge.function}({', '.join(str(p) for p in params)})" if isinstance(params, list) else "?"
        )
        detail = Detail(
            problem="signature",
            expected=f"{challenge.function}({', '.join(challenge.params)})",
            got=got,
        )
        return Status.BAD_SIGNATURE, LoadProblem(
            f"{challenge.function} must take {wanted} argument{'s' if wanted != 1 else ''}",
            detail,
            defined,
        )
    return None


def check_source(
    source: Source,
    suite: Suite,
    sandbox: SandboxKind,
    limits: Limits | None = None,
    student: str | None = None,
    worker: Worker | None = None,
) -> SubmissionReport:
    """Check one submission against one challenge's suite and describe everything found.

    ``worker`` may be a child already spawned for this source (:meth:`Worker.spawn`),
    so that it loads while the grader imports its tests; it is closed here either way.
    """
    started = time.monotonic()
    challenge = suite.challenge
    limits = limits or challenge.limits
    name = source.path.name

    def report(
        status: Status,
        tests: tuple[TestResult, ...],
        problem: LoadProblem | None = None,
        printed: str | None = None,
    ) -> SubmissionReport:
        made = SubmissionReport(
            challenge=challenge.slug,
            title=challenge.title,
            function=challenge.function,
            file=name,
            sandbox=sandbox,
            status=status,
            tests=tests,
            score=sum(t.points for t in tests),
            max_score=sum(t.max_points for t in tests),
            load_problem=problem,
            hidden_not_run=suite.hidden_not_run,
            printed_at_load=printed,
            notices=source.notices,
            seconds=round(time.monotonic() - started, 3),
            suite_hash=suite.suite_hash,
            version=__version__,
            student=student,
        )
        return made if source.cells is None else in_cells(made, source.cells)

    if source.status is not Status.CHECKED:
        if worker is not None:
            worker.close()
        return report(source.status, _skipped(suite, "not run: the file could not be read"), source.problem)
    worker = worker or Worker(source.text, sandbox, limits)
    try:
        try:
            load = worker.load()
            while left_out := leave_out_failing_statement(source.text, source.cells, load):
                # A notebook's cell stopped: go on without the rest of it, as Jupyter would.
                worker.close()
                source = replace(source, text=left_out.text, notices=with_note(source.notices, left_out.note))
                worker = Worker(source.text, sandbox, limits)
                load = worker.load()
        except SandboxFailure as failure:
            problem = LoadProblem(f"the sandbox could not start on this machine: {failure}")
            return report(Status.GRADER_ERROR, _skipped(suite, "not run: the sandbox failed"), problem)
        printed = load.printed.text or None
        if load.status != "ready":
            return report(
                Status.LOAD_ERROR,
                _skipped(suite, "not run: the file did not load"),
                _load_problem(load, name),
                printed,
            )
        trouble = _function_problem(challenge, load.functions, name)
        if trouble is not None:
            status, problem = trouble
            return report(status, _skipped(suite, f"not run: {problem.message}"), problem, printed)
        tests = run_cases(suite.cases, SubmissionProxy(worker, load.functions))
    finally:
        worker.close()
    return report(Status.CHECKED, tests, None, printed)
