"""Read a submission (without running it) for signs that it reaches into the grader.

Student code shares the sandboxed interpreter with the harness, whose detector records
at run time the few things only tampering does
(:mod:`~menace_course.sandbox.harness`); this is the other half, done in the grader on
the source text with :mod:`ast`. It flags code that introspects what a
lesson's answer never needs: ``__main__`` and ``sys.modules`` (where the harness lives),
the garbage collector, frames (``sys._getframe``, ``inspect.stack``, ``f_back``,
``tb_frame``...), ``ctypes``, tracing and audit hooks, code and closure internals, and
``signal``. A match does not prove cheating; it makes the submission "needs review", never
a clean pass, and the instructor decides.

:func:`findings` joins these with what the sandbox saw at run time
(:class:`~menace_course.sandbox.outcomes.Tampering`) into the report's
:class:`~menace_course.models.Finding` s.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from menace_course.models import Finding
from menace_course.sandbox.outcomes import Tampering

#: Modules a lesson's answer has no use for, that reach the interpreter's insides.
MODULES = {
    "__main__": "imports `__main__` (where the grader's harness runs)",
    "gc": "imports `gc` (the garbage collector can hand out any object)",
    "ctypes": "imports `ctypes` (raw memory and system calls)",
    "_ctypes": "imports `_ctypes` (raw memory and system calls)",
    "signal": "imports `signal` (a handler interrupts the grader's code)",
    "_signal": "imports `_signal` (a handler interrupts the grader's code)",
    "marshal": "imports `marshal` (code objects from bytes)",
}
#: ``module.attribute`` pairs that introspect the running grader.
CALLS = {
    ("sys", "modules"): "reads `sys.modules` (every loaded module, the grader's too)",
    ("sys", "_getframe"): "walks the call stack (`sys._getframe`)",
    ("sys", "_current_frames"): "walks the call stack (`sys._current_frames`)",
    ("sys", "settrace"): "sets a trace function (`sys.settrace`)",
    ("sys", "setprofile"): "sets a profile function (`sys.setprofile`)",
    ("sys", "addaudithook"): "adds an audit hook (`sys.addaudithook`)",
    ("inspect", "currentframe"): "walks the call stack (`inspect.currentframe`)",
    ("inspect", "stack"): "walks the call stack (`inspect.stack`)",
    ("inspect", "getouterframes"): "walks the call stack (`inspect.getouterframes`)",
    ("inspect", "trace"): "walks the call stack (`inspect.trace`)",
    ("traceback", "walk_stack"): "walks the call stack (`traceback.walk_stack`)",
    ("threading", "settrace"): "sets a trace function (`threading.settrace`)",
}
#: Attributes that only frames, code and closures have.
ATTRIBUTES = {
    "f_back": "walks the call stack (`f_back`)",
    "f_globals": "reads a frame's globals (`f_globals`)",
    "f_locals": "reads a frame's local variables (`f_locals`)",
    "tb_frame": "reads a traceback's frame (`tb_frame`)",
    "gi_frame": "reads a generator's frame (`gi_frame`)",
    "cr_frame": "reads a coroutine's frame (`cr_frame`)",
    "__subclasses__": "lists every subclass (`__subclasses__`), which leads to the grader's classes",
    "__globals__": "reads a function's globals (`__globals__`)",
    "__builtins__": "reads the builtins a function looks names up in (`__builtins__`)",
    "__closure__": "reads a function's closure (`__closure__`)",
    "__code__": "reads or replaces a function's code (`__code__`)",
}
#: What the sandbox's detector reports (``harness.RECORDED_EVENTS``), in the instructor's
#: words, and the grader's own finding of a message the harness did not write.
RUNTIME = {
    "sys.addaudithook": "added an audit hook while running",
    "sys._current_frames": "walked every thread's call stack while running (`sys._current_frames`)",
    "sys._current_exceptions": "read every thread's exception while running (`sys._current_exceptions`)",
    "gc.get_objects": "listed every object in memory while running (`gc.get_objects`)",
    "gc.get_referents": "looked inside objects while running (`gc.get_referents`)",
    "forged message": "wrote a message to the grader that the harness did not send",
    "open": "opened a file of the machine's own while running (accounts, settings, other people's files)",
    "socket": "opened a network socket while running",
}
MAX_FINDINGS = 20


def scan(text: str) -> tuple[Finding, ...]:
    """What the source text shows of introspection (empty when nothing, or when it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    found: dict[tuple[str, int], Finding] = {}

    def flag(what: str, node: ast.AST) -> None:
        line = getattr(node, "lineno", 0)
        found.setdefault((what, line), Finding("code", what, line))

    imported_as: dict[str, str] = {}  # local name -> module, for `import sys as s`
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                imported_as[alias.asname or top] = top
                if top in MODULES:
                    flag(MODULES[top], node)
        elif isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            if top in MODULES:
                flag(MODULES[top], node)
            for alias in node.names:
                if (top, alias.name) in CALLS:
                    flag(CALLS[(top, alias.name)], node)
        elif isinstance(node, ast.Call) and _names_a_module(node):
            flag(MODULES[_names_a_module(node)], node)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if node.attr in ATTRIBUTES:
                flag(ATTRIBUTES[node.attr], node)
            if isinstance(node.value, ast.Name):
                module = imported_as.get(node.value.id, node.value.id)
                if (module, node.attr) in CALLS:
                    flag(CALLS[(module, node.attr)], node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            name = node.args[1] if len(node.args) > 1 else None
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                what = ATTRIBUTES.get(name.value) or next(
                    (w for (_, attr), w in CALLS.items() if attr == name.value), None
                )
                if what:
                    flag(what, node)
        elif isinstance(node, ast.Constant | ast.BinOp):
            # The name written as a string, whole or in pieces ("__glo" + "bals__"), for
            # getattr or vars() to use later: a lesson's answer never spells these.
            spelled = _spelled(node)
            if spelled in ATTRIBUTES:
                flag(ATTRIBUTES[spelled], node)
    return tuple(sorted(found.values(), key=lambda f: (f.line, f.what)))[:MAX_FINDINGS]


def _spelled(node: ast.expr, depth: int = 0) -> str | None:
    """The text of a string constant, or of constants joined with ``+`` (None otherwise)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and depth < 50:
        left, right = _spelled(node.left, depth + 1), _spelled(node.right, depth + 1)
        if left is not None and right is not None and len(left) + len(right) <= 100:
            return left + right
    return None


def _names_a_module(node: ast.Call) -> str:
    """``__import__("gc")`` or ``importlib.import_module("ctypes")``: the module, if flagged."""
    func = node.func
    named = (isinstance(func, ast.Name) and func.id == "__import__") or (
        isinstance(func, ast.Attribute) and func.attr == "import_module"
    )
    if not named or not node.args:
        return ""
    first = node.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        top = first.value.split(".")[0]
        return top if top in MODULES else ""
    return ""


def _plain(text: str, path: bool = False) -> str:
    """Only letters, digits, ``_`` and ``.`` (and ``/`` and ``-`` in a ``path``), at most 60 of
    them: a name or a path, never markup or escapes."""
    allowed = "_./-" if path else "_."
    return "".join(c for c in text if c.isascii() and (c.isalnum() or c in allowed))[:60]


def findings(text: str, attempts: Iterable[Tampering] = ()) -> tuple[Finding, ...]:
    """Everything that makes a submission "needs review": its source, then what it tried."""
    seen: list[Finding] = list(scan(text))
    for attempt in attempts:
        event = attempt.event if attempt.event in RUNTIME else _plain(attempt.event)
        what = RUNTIME.get(event, f"tried `{event}` while running")
        detail = _plain(attempt.detail, path=event == "open")
        if detail and event in ("import", "object.__getattr__", "refused", "open"):
            what = f"{what} (`{detail}`)"
        finding = Finding("sandbox", what)
        if finding not in seen:
            seen.append(finding)
    return tuple(seen[:MAX_FINDINGS])
