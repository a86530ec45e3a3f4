"""Why no test could run on a submission, described for the student.

The child could not load the file (it raised, hung or stopped Python), or the file
does not define the challenge's function, or defines it with the wrong parameters.
Each becomes a :class:`~menace_course.models.LoadProblem`, and every test of the suite
is reported as skipped with the reason. Loading happens before any test calls the
function, so what the child says here (its exception, frames, printed text) holds nothing
of a hidden test, and the student sees it all.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from menace_course import wording
from menace_course.checking.suite import Suite
from menace_course.models import Detail, ErrorKind, LoadProblem, Outcome, Problem, Status, TestResult
from menace_course.sandbox.outcomes import FunctionInfo, LoadOutcome, refused_for_size

if TYPE_CHECKING:  # pipeline imports this module
    from menace_course.checking.pipeline import Target

#: Exceptions at load time that have advice of their own (see feedback_templates/words.j2). The
#: child's class name is looked up through :meth:`ErrorKind.of`: only an exact builtin name counts.
LOAD_PROBLEMS: dict[ErrorKind, Problem] = {
    ErrorKind.EOF: Problem.INPUT,
    ErrorKind.SYSTEM_EXIT: Problem.EXIT,
    ErrorKind.MEMORY: Problem.MEMORY,
    ErrorKind.MODULE_NOT_FOUND: Problem.IMPORT,
    ErrorKind.IMPORT: Problem.IMPORT,
}


def skipped(suite: Suite, why: str) -> tuple[TestResult, ...]:
    """Every test of ``suite`` as skipped, for ``why``."""
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


def load_problem(load: LoadOutcome, name: str) -> LoadProblem:
    """What went wrong while the child loaded the file called ``name``."""
    printed = load.printed.text or None
    if load.status == "timeout":
        detail = Detail(problem=Problem.TIMEOUT, printed=printed)
        return LoadProblem(wording.LOAD_TIMEOUT % {"file": name}, detail)
    if refused_for_size(load):
        assert load.exception is not None
        return too_large(load.exception.message, name, printed)
    if load.status == "crashed":
        detail = Detail(
            problem=Problem.CRASHED, printed=printed, note=wording.EXIT_CODE % {"code": load.exit_code}
        )
        return LoadProblem(wording.LOAD_CRASHED % {"file": name}, detail)
    exception = load.exception
    assert exception is not None
    frames = exception.frames
    kind = ErrorKind.of(exception.type_name)
    problem = LOAD_PROBLEMS.get(kind, Problem.RAISED) if kind is not None else Problem.RAISED
    detail = Detail(
        problem=problem,
        error_type=exception.type_name,
        error_message=exception.message,
        traceback=frames,
        printed=printed,
    )
    return LoadProblem(wording.LOAD_RAISED % {"file": name}, detail)


def too_large(cap: str, name: str, printed: str | None) -> LoadProblem:
    """The file loaded, but what it defines was over the cap on one reply (``cap``, in bytes).

    The ready message lists every top-level function with its parameters' names; the
    worker refuses a reply over ``Limits.reply_bytes`` and stops the child. Python did
    not stop: a file that makes hundreds of functions with long parameter lists (say
    with ``exec`` in a loop) did this while loading, so it is a load problem of the file.
    """
    size = int(cap) if cap.isdigit() else 0
    detail = Detail(problem=Problem.RAISED, printed=printed, note=f"reply cap {size} bytes")
    return LoadProblem(wording.LOAD_TOO_MUCH % {"file": name, "cap": cap_words(cap)}, detail)


def cap_words(cap: str) -> str:
    """The cap on one reply (``cap``, in bytes, as the worker's ``ReplyTooLarge`` carries it) in words.

    >>> cap_words("1048576"), cap_words("5000")
    ('1 MiB', '5,000 bytes')
    """
    size = int(cap) if cap.isdigit() else 0
    mib = size / (1024 * 1024)
    return f"{mib:g} MiB" if size and mib == int(mib) else f"{size:,} bytes"


def has_code(text: str) -> bool:
    r"""False for a file of nothing but comments, blank lines and a docstring: nothing handed in.

    >>> has_code("# my answer\n\n"), has_code("'To do.'\n"), has_code("x = 1\n")
    (False, False, True)
    """
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True  # something is there (the loader says what is wrong with it)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return bool(body)


def function_problem(
    challenge: Target, functions: dict[str, FunctionInfo], name: str, text: str
) -> tuple[Status, LoadProblem] | None:
    """Why the loaded file's functions cannot be tested, or None when they can (``text``: its code)."""
    defined = tuple(sorted(f for f, info in functions.items() if info.is_function))
    info = functions.get(challenge.function)
    if info is None and not defined and not has_code(text):
        return Status.NO_FUNCTION, LoadProblem(
            wording.LOAD_NOTHING % {"file": name}, Detail(problem=Problem.NOTHING), ()
        )
    if info is None:
        import difflib  # only when a name needs a suggestion: off every start path

        close = difflib.get_close_matches(challenge.function, defined, n=1, cutoff=0.6)
        note = wording.DEFINED_INSTEAD % {"name": repr(close[0])} if close else None
        detail = Detail(problem=Problem.MISSING, note=note)
        return Status.NO_FUNCTION, LoadProblem(
            wording.LOAD_MISSING % {"fn": challenge.function, "file": name}, detail, defined
        )
    wanted = len(challenge.params)
    if wanted < info.min or (info.max is not None and wanted > info.max):
        got = f"{challenge.function}({', '.join(info.params)})"
        detail = Detail(
            problem=Problem.SIGNATURE,
            expected=f"{challenge.function}({', '.join(challenge.params)})",
            got=got,
        )
        return Status.BAD_SIGNATURE, LoadProblem(
            (wording.LOAD_SIGNATURE_ONE if wanted == 1 else wording.LOAD_SIGNATURE_MANY)
            % {"fn": challenge.function, "n": wanted},
            detail,
            defined,
        )
    return None
