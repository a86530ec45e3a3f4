"""The grader's side of a sandboxed child: start it, call functions with deadlines, end it.

One :class:`Worker` serves one submission. Every call has a wall-clock deadline; the
submission as a whole has a budget. A timeout, a crash or a garbled reply kills the child
(and, through its pid namespace or process group, everything it started) and the next
call starts a fresh one. A function that timed out is not called again: its remaining
calls fail at once, so a file that loops forever costs one timeout, not one per test.

Nothing from the child is trusted: replies are size-capped, strictly shaped, matched by
id and decoded by :mod:`~menace_course.sandbox.wire`; the parent never imports or calls
anything of the submission's.
"""

from __future__ import annotations

import atexit
import functools
import os
import py_compile
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from menace_course.limits import Limits
from menace_course.models import SandboxKind
from menace_course.sandbox import wire
from menace_course.sandbox.launch import HARNESS_DIR, plan_launch
from menace_course.sandbox.outcomes import (
    CallOutcome,
    LoadOutcome,
    ProtocolError,
    SandboxFailure,
    exception_from,
    functions_from,
    printed_from,
)


@functools.cache
def compiled_harness() -> Path:
    """The harness and codec, compiled once per grader process.

    The child runs them from these ``.pyc`` files (sourceless, never checked against a
    source), so no sandbox compiles them again: a few milliseconds on every submission.
    """
    folder = Path(tempfile.mkdtemp(prefix="menace-harness-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for name in ("harness", "wire"):
        py_compile.compile(
            str(HARNESS_DIR / f"{name}.py"),
            cfile=str(folder / f"{name}.pyc"),
            doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
    return folder


class Worker:
    """A sandboxed child that has loaded one submission and answers calls on it.

    Example:
        with Worker(source, "bwrap", Limits()) as worker:
            load = worker.load()
            outcome = worker.call("after_game", [[4] * 9, 0, "win"])
    """

    #: A function that stops Python (or runs out of memory) this many times is not called again.
    CRASHES_BEFORE_GIVING_UP = 3

    def __init__(self, source: str, kind: SandboxKind, limits: Limits) -> None:
        """Prepare (but do not start) a child for the submission's source text."""
        self.source = source
        self.kind = kind
        self.limits = limits
        self.spent = 0.0  #: seconds of wall clock used by calls so far
        self.dead_functions: set[str] = set()
        self._crashes: dict[str, int] = {}
        self.starts = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._workdir: Path | None = None
        self._requests = -1
        self._replies = -1
        self._buffer = b""
        self._next_id = 0
        self._load: LoadOutcome | None = None
        self._errors: Any = None

    def __enter__(self) -> Worker:
        """Use as a context manager so the child is always killed."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Kill the child and remove its scratch folder."""
        self.close()

    # -- life cycle ---------------------------------------------------------------

    def spawn(self) -> Worker:
        """Start the child now, without waiting for it: it loads while the grader gets ready."""
        if self._process is None and self._load is None:
            self._start()
        return self

    def load(self) -> LoadOutcome:
        """Import the submission in the child (starting it if need be) and say how that went.

        The first answer is kept: a child restarted after a timeout is not asked again.
        """
        if self._load is None:
            if self._process is None:
                self._start()
            self._load = self._await_ready()
        elif self._process is None:
            self._start()
            self._await_ready()
        return self._load

    def _start(self) -> None:
        self.starts += 1
        if self._workdir is None:
            self._workdir = Path(tempfile.mkdtemp(prefix="menace-"))
            for name in ("harness.pyc", "wire.pyc"):
                shutil.copyfile(compiled_harness() / name, self._workdir / name)
            (self._workdir / "submission.py").write_text(self.source, encoding="utf-8")
            for path in (self._workdir, *self._workdir.iterdir()):
                path.chmod(0o755 if path.is_dir() else 0o644)
        self._close_errors()
        # The sandbox's own complaints (bwrap, or Python failing to start) land here; the
        # harness points fd 2 at /dev/null before any student code runs.
        self._errors = tempfile.TemporaryFile()
        request_read, self._requests = os.pipe()
        self._replies, reply_write = os.pipe()
        plan = plan_launch(self.kind, self._workdir, self.limits, (request_read, reply_write))
        try:
            self._process = subprocess.Popen(
                plan.argv,
                env=plan.env,
                cwd=plan.workdir,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._errors,
                pass_fds=plan.pass_fds,
                start_new_session=True,
            )
        finally:
            os.close(request_read)
            os.close(reply_write)

    def _await_ready(self) -> LoadOutcome:
        try:
            message = self._read_message(self.limits.import_seconds)
        except TimeoutError:
            self._kill()
            return LoadOutcome("timeout")
        except (EOFError, ProtocolError):
            code = self._kill(grace=0.2)
            complaint = self._sandbox_complaint()
            if complaint:
                raise SandboxFailure(complaint) from None
            return LoadOutcome("crashed", exit_code=code)
        try:
            printed = printed_from(message.get("printed"))
            if message.get("ready") is True:
                functions = functions_from(message.get("functions"))
                return LoadOutcome("ready", functions=functions, printed=printed)
            if message.get("ready") is False:
                self._kill()
                return LoadOutcome("raised", printed=printed, exception=exception_from(message.get("error")))
            raise ProtocolError("bad ready message")
        except (ProtocolError, TypeError, ValueError):
            return LoadOutcome("crashed", exit_code=self._kill(grace=0.2))

    def _sandbox_complaint(self) -> str:
        """What the sandbox itself printed before the harness took over (empty if nothing)."""
        if self._errors is None:
            return ""
        self._errors.seek(0)
        text = self._errors.read(4000).decode("utf-8", "replace").strip()
        return text if text.startswith("bwrap:") or "Traceback" in text or "Fatal Python" in text else ""

    def close(self) -> None:
        """Kill the child and everything it started; remove the scratch folder."""
        self._kill()
        self._close_errors()
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def _kill(self, grace: float = 0.0) -> int | None:
        """Kill the child's whole process group; ``grace`` lets a child that is exiting finish."""
        code = None
        if self._process is not None and grace:
            try:
                code = self._process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        if self._process is not None:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                code = self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                code = self._process.wait()
            self._process = None
        for fd in (self._requests, self._replies):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._requests = self._replies = -1
        self._buffer = b""
        return code

    def _close_errors(self) -> None:
        if self._errors is not None:
            self._errors.close()
            self._errors = None

    # -- calls --------------------------------------------------------------------

    def call(self, function: str, args: list[Any]) -> CallOutcome:
        """Call ``function(*args)`` in the child, within the per-call and per-submission limits."""
        remaining = self.limits.budget_seconds - self.spent
        if remaining <= 0:
            return CallOutcome("budget")
        if function in self.dead_functions:
            return CallOutcome("dead")
        if self._process is None:
            self._start()
            restarted = self._await_ready()
            if restarted.status != "ready":
                return CallOutcome("crashed", exit_code=restarted.exit_code)
        self._next_id += 1
        try:
            request = wire.pack({"id": self._next_id, "fn": function, "args": list(args)})
        except ValueError as error:
            raise TypeError(f"only plain data can be sent to a submission: {error}") from None
        deadline = min(self.limits.call_seconds, remaining)
        started = time.monotonic()
        try:
            os.write(self._requests, request)
            reply = self._read_message(deadline)
            outcome = self._parse_reply(reply, self._next_id)
            if outcome.exception is not None and outcome.exception.type_name == "MemoryError":
                self._count_crash(function)  # a memory bomb costs a second a call: stop early
        except TimeoutError:
            self._kill()
            self.dead_functions.add(function)
            outcome = CallOutcome("timeout" if deadline >= self.limits.call_seconds else "budget")
        except (EOFError, BrokenPipeError, ProtocolError, wire.WireError):
            outcome = CallOutcome("crashed", exit_code=self._kill(grace=0.2))
            self._count_crash(function)
        seconds = time.monotonic() - started
        self.spent += seconds
        return CallOutcome(**{**outcome.__dict__, "seconds": seconds})

    def _count_crash(self, function: str) -> None:
        self._crashes[function] = self._crashes.get(function, 0) + 1
        if self._crashes[function] >= self.CRASHES_BEFORE_GIVING_UP:
            self.dead_functions.add(function)

    def _parse_reply(self, reply: dict[str, Any], expected_id: int) -> CallOutcome:
        if reply.get("id") != expected_id or not isinstance(reply.get("ok"), bool):
            raise ProtocolError("reply does not answer the request")
        printed = printed_from(reply.get("printed"))
        if not reply["ok"]:
            exception = exception_from(reply.get("error"))
            if exception.type_name == "MissingFunction" and not exception.frames:
                return CallOutcome("missing", printed=printed)
            return CallOutcome("raised", printed=printed, exception=exception)
        if "result" not in reply or not isinstance(reply.get("args_after"), list):
            raise ProtocolError("reply lacks a result")
        result = wire.decode(reply["result"])
        args_after = tuple(wire.decode(a) for a in reply["args_after"])
        return CallOutcome("returned", result=result, args_after=args_after, printed=printed)

    def _read_message(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self._replies], [], [], left)
            if not ready:
                raise TimeoutError
            chunk = os.read(self._replies, 65536)
            if not chunk:
                raise EOFError
            self._buffer += chunk
            if len(self._buffer) > self.limits.reply_bytes:
                raise ProtocolError("reply too large")
        line, self._buffer = self._buffer.split(b"\n", 1)
        message = wire.loads(line)
        if not isinstance(message, dict):
            raise ProtocolError("reply is not an object")
        return message
