"""Run a lesson program (Step 1-4, or a student's edit of one) in the sandbox, safely.

A program on the page is untrusted once a student can edit it, so it goes in by the one
submission path, exactly as a check does
(:func:`~menace_course.checking.pipeline.open_submission`): the same loader (size,
encoding), the same sandboxed child with the same limits and hard wall-clock end, and
nothing of it ever runs in the server. The child loads one *submission* module, so the
program is wrapped as one:

* the module holds the program's text and the texts of the lesson's ``noughts.py`` and
  ``pixels.py`` as string literals, and defines one function, ``run_lesson_program``;
* that function makes ``noughts`` and ``pixels`` importable from those texts, replaces
  ``show_grid`` by one that only keeps the rows and colours as plain data, runs the
  program as ``__main__`` and returns the pictures;
* the proxy calls it, as a test calls a student's function: within the per-call time
  limit, with what it prints captured.

The server then draws each picture itself with :mod:`menace_course.lesson.pixels`, after
checking that it is plain, small data. The program's frames in a traceback keep its own
line numbers, and the lines shown are the program's own.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from menace_course.checking.pipeline import Target, open_submission
from menace_course.checking.testing import CallProblem
from menace_course.lesson import noughts, pixels
from menace_course.limits import Limits
from menace_course.models import SandboxKind, Status
from menace_course.sandbox.outcomes import CallOutcome, refused_for_size
from menace_course.service.languages import gettext as _
from menace_course.wording import N_, reworded

__all__ = ["MAX_SOURCE", "ProgramRun", "run_program", "wrap_program"]

#: The one function the wrapped module defines (the program runs in a namespace of its own).
ENTRY = "run_lesson_program"
#: The largest program accepted, in characters.
MAX_SOURCE = 50_000
#: The largest picture drawn: rows, and squares in a row.
MAX_ROWS, MAX_COLUMNS = 200, 200
#: Programs running at once in one server process (the service shares them out in turns:
#: ``service.lesson.views.RUNNER``).
CONCURRENT = 2

_RUNNER = """
def {entry}():
    import sys, types
    pictures = []
    for module_name, text in _LESSON_MODULES.items():
        module = types.ModuleType(module_name)
        module.__file__ = module_name + ".py"
        sys.modules[module_name] = module
        exec(compile(text, module_name + ".py", "exec"), module.__dict__)

    def show_grid(rows, colours, path=None, **options):
        pictures.append([[[str(item) for item in row] for row in rows],
                         {{str(key): str(value) for key, value in colours.items()}}])

    sys.modules["pixels"].show_grid = show_grid
    program = {{"__name__": "__main__", "__file__": "program.py", "__builtins__": __builtins__}}
    exec(compile(_LESSON_PROGRAM, __file__, "exec"), program)
    return pictures
"""


def _module_text(module: Any) -> str:
    return Path(module.__file__).read_text(encoding="utf-8")


def wrap_program(source: str) -> str:
    """The submission module that runs ``source`` as the page does (see the module's doc)."""
    modules = {"noughts": _module_text(noughts), "pixels": _module_text(pixels)}
    return (
        "# A lesson program, wrapped to run in the sandbox (menace_course.service.lesson.programs).\n"
        f"_LESSON_PROGRAM = {source!r}\n"
        f"_LESSON_MODULES = {modules!r}\n" + _RUNNER.format(entry=ENTRY)
    )


@dataclass(frozen=True)
class ProgramRun:
    """What a program did: what it printed, its pictures (as SVG), or what went wrong."""

    printed: str = ""
    dropped: int = 0
    pictures: tuple[str, ...] = ()
    problem: str | None = None
    error: dict[str, Any] | None = None
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default=())

    def as_json(self) -> dict[str, Any]:
        return {
            "printed": self.printed,
            "dropped": self.dropped,
            "pictures": list(self.pictures),
            "problem": self.problem,
            "error": self.error,
            "seconds": round(self.seconds, 3),
            "notes": list(self.notes),
        }


def _picture(data: Any) -> str:
    """Draw one picture the program asked for, after checking it is small, plain data."""
    if not (isinstance(data, list) and len(data) == 2):
        raise ValueError(_("a picture must be rows and colours"))
    rows, colours = data
    if not isinstance(rows, list) or not isinstance(colours, dict) or len(rows) > MAX_ROWS:
        raise ValueError(_("a picture has at most %(n)s rows") % {"n": MAX_ROWS})
    for row in rows:
        if not isinstance(row, list) or len(row) > MAX_COLUMNS or not all(isinstance(i, str) for i in row):
            raise ValueError(_("a picture's row has at most %(n)s squares") % {"n": MAX_COLUMNS})
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in colours.items()):
        raise ValueError(_("colours must be names"))
    return pixels.svg_text(rows, colours)


def _error(outcome: CallOutcome, lines: list[str]) -> dict[str, Any] | None:
    exception = outcome.exception
    if exception is None:
        return None
    frames = []
    for frame in exception.frames:
        if frame.function == ENTRY:
            continue  # the wrapper's own line, not the program's
        code = lines[frame.line - 1].strip() if 0 < frame.line <= len(lines) else ""
        frames.append({"line": frame.line, "function": frame.function, "code": code})
    # A SyntaxError (an IndentationError, a TabError) is the program's own text failing to
    # compile: its line is only in the message, "(submission.py, line N)"; show it as a frame.
    where = _WHERE.search(exception.message)
    if where is not None and not frames:
        number = int(where.group(1))
        code = lines[number - 1].strip() if 0 < number <= len(lines) else ""
        frames.append({"line": number, "function": "<module>", "code": code})
    message = _WHERE.sub("", exception.message)
    return {"type": exception.type_name, "message": message, "frames": frames}


_WHERE = re.compile(r"\s*\([^()]*submission\.py, line (\d+)\)")


#: What a visitor reads when a program did not return, by how it ended (message ids of the
#: catalog, worded in the request's language where they are used; values filled in by name).
PROBLEMS: Mapping[str, str] = {
    "timeout": N_(
        "The program was still running when its %(seconds)s seconds of running time were up, "
        "so it was stopped (%(elapsed)s seconds in all, with starting and stopping the sandbox)."
    ),
    "budget": N_("The program used up its time, so it was stopped."),
    "crashed": N_("The program stopped Python (or used too much memory)."),
    "missing": N_("The program could not be started."),
    "dead": N_("The program could not be started."),
}
STOPPED = N_("The program stopped.")


#: What a visitor reads when the worker refused the program's reply for its size.
TOO_LARGE_PROBLEM = N_(
    "The program drew or printed more than the page can be sent back (over %(limit)s MiB), "
    "so nothing of it is shown. Draw smaller pictures, or fewer."
)


def lesson_target(limits: Limits) -> Target:
    """The wrapped program as the one submission path sees it: a function of no arguments."""
    return Target(slug="lesson_program", function=ENTRY, params=(), limits=limits)


def run_program(source: str, sandbox: SandboxKind, limits: Limits | None = None) -> ProgramRun:
    """Run one program in a fresh sandboxed child (the one submission path): what it printed and drew."""
    limits = limits or Limits()
    if len(source) > MAX_SOURCE:
        return ProgramRun(
            problem=_("The program is too long (at most %(n)s characters).") % {"n": f"{MAX_SOURCE:,}"}
        )
    began = time.monotonic()
    submission = ("program.py", wrap_program(source).encode("utf-8"))
    with open_submission(submission, lesson_target(limits), sandbox) as opened:
        if opened.proxy is None:
            if opened.status is Status.GRADER_ERROR and opened.problem is not None:
                why = reworded(opened.problem.message, _)
                return ProgramRun(problem=_("The program could not run: %(why)s.") % {"why": why})
            return ProgramRun(problem=_("The program could not be started in the sandbox."))
        try:
            getattr(opened.proxy, ENTRY)()
        except CallProblem as problem:
            outcome: CallOutcome = problem.outcome
        else:
            assert opened.proxy.last_call is not None and opened.proxy.last_call.outcome is not None
            outcome = opened.proxy.last_call.outcome
    lines = source.splitlines()
    printed, dropped = outcome.printed.text, outcome.printed.dropped
    if outcome.status == "raised":
        return ProgramRun(printed, dropped, error=_error(outcome, lines), seconds=outcome.seconds)
    if refused_for_size(outcome):
        # The worker refused a reply over its cap: Python did not stop, there was too much to send.
        message = _(TOO_LARGE_PROBLEM) % {"limit": f"{limits.reply_bytes / 2**20:g}"}
        return ProgramRun(printed, dropped, problem=message, seconds=outcome.seconds)
    if outcome.status != "returned":
        message = _(PROBLEMS.get(outcome.status, STOPPED)) % {
            "seconds": f"{limits.call_seconds:g}",
            "elapsed": f"{time.monotonic() - began:.0f}",
        }
        return ProgramRun(printed, dropped, problem=message, seconds=outcome.seconds)
    pictures: list[str] = []
    notes: list[str] = []
    if isinstance(outcome.result, list):
        for data in outcome.result[:4]:
            try:
                pictures.append(_picture(data))
            except ValueError as error:
                notes.append(_("A picture could not be drawn: %(why)s.") % {"why": error})
    return ProgramRun(printed, dropped, tuple(pictures), seconds=outcome.seconds, notes=tuple(notes))
