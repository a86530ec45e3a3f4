"""The trusted program that runs inside the sandbox and answers calls on a submission.

It starts before any student code, and:

1. moves the request and reply pipes out of the student's reach: fds 0, 1 and 2 become
   ``/dev/null``, so ``input()`` gets end-of-file and prints go nowhere unless captured;
2. drops to an unprivileged user when it was started as root inside bubblewrap;
3. sets resource limits (memory, CPU, file size, open files, processes);
4. imports the submission as the module ``submission`` (so ``if __name__ == "__main__"``
   code does not run), capturing what it prints;
5. answers one request per line (``{"id": n, "fn": name, "args": [...]}``, packed) with
   ``{"id": n, "ok": true, "result": ..., "args_after": [...], "printed": ...}`` or
   ``{"id": n, "ok": false, "error": {...}}`` where the error holds only the student's frames.

It never sees tests, references or expected values: it only calls and reports.
Usage (by the grader, from a precompiled ``harness.pyc``):
``python -I -S -B harness.pyc SUBMISSION REQUEST_FD REPLY_FD SETTINGS`` where SETTINGS is
:func:`wire.pack` output. Requests arrive the same way; replies go back as tagged JSON.
"""

from __future__ import annotations

# Imports are few and light on purpose: the harness starts once per submission, and
# inspect, importlib.util and traceback would triple its start-up time.
import io
import os
import sys
import types

TYPE_CHECKING = False  # not typing's: importing typing alone would cost 5 ms
if TYPE_CHECKING:
    from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # type: ignore[import-not-found]  # noqa: E402  (the codec sits beside this file)

MAX_REQUEST = 4 * 1024 * 1024
#: The submission's lines, to show the code of a student's frame (no linecache here).
SOURCE_LINES: list[str] = []
MAX_FRAMES = 12
_BaseException = BaseException
_type = type


class CappedOutput(io.TextIOBase):
    """A stand-in for ``sys.stdout`` that keeps the first ``limit`` characters of what is printed."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: Any) -> int:
        text = text if _type(text) is str else str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def take(self) -> dict[str, Any]:
        """Return what was printed since the last take, and start again."""
        printed = {"text": "".join(self.parts), "dropped": self.dropped}
        self.parts, self.kept, self.dropped = [], 0, 0
        return printed


def isolate_fds(request_fd: int, reply_fd: int) -> tuple[Any, Any]:
    """Keep the pipes on private fds and give the student /dev/null for 0, 1 and 2."""
    requests = os.fdopen(request_fd, "rb", buffering=0)
    replies = os.fdopen(reply_fd, "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = open(os.devnull)  # lives as long as the process
    sys.stderr = CappedOutput(0)
    return requests, replies


def drop_privileges(uid: int) -> None:
    """Become an unprivileged user (only possible, and only needed, when started as root)."""
    if os.getuid() != 0:
        return
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def set_limits(limits: dict[str, Any]) -> None:
    """Apply resource limits where this OS has them (Windows has no ``resource`` module)."""
    try:
        import resource
    except ImportError:
        return
    names = {
        "memory": resource.RLIMIT_AS,
        "cpu": resource.RLIMIT_CPU,
        "file_size": resource.RLIMIT_FSIZE,
        "open_files": resource.RLIMIT_NOFILE,
        "processes": getattr(resource, "RLIMIT_NPROC", None),
        "core": resource.RLIMIT_CORE,
    }
    for key, value in limits.items():
        which = names.get(key)
        if which is None or value is None:
            continue
        soft, hard = (value, value) if _type(value) is int else tuple(value)
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):
            pass  # e.g. RLIMIT_AS is not enforced on macOS; the wall clock still is


def student_frames(error: BaseException, filename: str) -> list[dict[str, Any]]:
    """The traceback entries inside the submission file only, newest last, repeats collapsed."""
    frames: list[dict[str, Any]] = []
    tb = error.__traceback__
    while tb is not None:
        code, line = tb.tb_frame.f_code, tb.tb_lineno
        tb = tb.tb_next
        if code.co_filename != filename:
            continue
        text = SOURCE_LINES[line - 1].strip() if 0 < line <= len(SOURCE_LINES) else ""
        frame = {"line": line, "function": code.co_name, "code": text[:200]}
        if frames and {k: frames[-1][k] for k in frame} == frame:
            frames[-1]["repeats"] = frames[-1].get("repeats", 1) + 1
        else:
            frames.append(frame)
    if isinstance(error, SyntaxError) and error.filename == filename:
        frames.append(
            {
                "line": error.lineno or 0,
                "function": "<module>",
                "code": (error.text or "").rstrip()[:200],
                "column": error.offset or 0,
            }
        )
    return frames[-MAX_FRAMES:]


def describe_error(error: BaseException, filename: str) -> dict[str, Any]:
    """Plain facts about an exception raised by student code."""
    try:
        message = str(error)
    except _BaseException:
        message = "?"
    return {
        "type": _type(error).__name__,
        "message": message[:500],
        "frames": student_frames(error, filename),
    }


def describe_functions(module: Any) -> dict[str, Any]:
    """Every function the submission defines at top level, with what its signature accepts.

    Read from each function's code object (``inspect.signature`` would cost more to import
    than everything else); other callables, such as classes, accept anything as far as the
    grader can tell.
    """
    found: dict[str, Any] = {}
    for name, value in list(vars(module).items()):
        if not callable(value) or name.startswith("__"):
            continue
        code = getattr(value, "__code__", None)
        if _type(value) is not types.FunctionType or _type(code) is not types.CodeType:
            found[name] = {"params": [], "min": 0, "max": None, "is_function": False}
            continue
        positional = list(code.co_varnames[: code.co_argcount])
        defaults = value.__defaults__ or ()
        variadic = bool(code.co_flags & 0x04)  # CO_VARARGS
        found[name] = {
            "params": positional,
            "min": len(positional) - len(defaults),
            "max": None if variadic else len(positional),
            "is_function": True,
        }
    return found


def send(replies: Any, message: dict[str, Any]) -> None:
    try:
        replies.write(wire.dumps(message))
    except (ValueError, TypeError, RecursionError):
        replies.write(
            wire.dumps(
                {
                    "id": message.get("id"),
                    "nonce": message.get("nonce"),
                    "ok": False,
                    "error": {
                        "type": "UnsendableResult",
                        "message": "the result could not be sent",
                        "frames": [],
                    },
                }
            )
        )


def load_submission(path: str, output: CappedOutput) -> tuple[Any, dict[str, Any]]:
    """Import the student's file; return the module (or None) and the ready message."""
    sys.stdout = output
    module = types.ModuleType("submission")
    module.__file__ = path
    sys.modules["submission"] = module
    try:
        with open(path, encoding="utf-8") as file:
            source = file.read()
        SOURCE_LINES[:] = source.splitlines()
        exec(compile(source, path, "exec"), module.__dict__)
    except _BaseException as error:  # SystemExit, EOFError from input(), MemoryError, ...
        return None, {
            "ready": False,
            "error": describe_error(error, path),
            "printed": output.take(),
        }
    return module, {
        "ready": True,
        "functions": describe_functions(module),
        "printed": output.take(),
    }


def answer(module: Any, request: dict[str, Any], path: str, output: CappedOutput) -> dict[str, Any]:
    """Make one call and describe what happened."""
    call_id = request.get("id")
    function = getattr(module, str(request.get("fn")), None)
    if function is None or not callable(function):
        return {
            "id": call_id,
            "ok": False,
            "error": {"type": "MissingFunction", "message": "", "frames": []},
        }
    args = list(request.get("args", []))
    sys.stdout = output
    try:
        result = function(*args)
    except _BaseException as error:
        return {
            "id": call_id,
            "ok": False,
            "error": describe_error(error, path),
            "printed": output.take(),
        }
    finally:
        sys.stdout = output
    try:
        encoded = wire.encode(result)
        args_after = [wire.encode(arg) for arg in args]
    except _BaseException as error:  # e.g. RecursionError on a self-containing list
        return {
            "id": call_id,
            "ok": False,
            "error": describe_error(error, path),
            "printed": output.take(),
        }
    return {
        "id": call_id,
        "ok": True,
        "result": encoded,
        "args_after": args_after,
        "printed": output.take(),
    }


class Requests:
    """The request pipe, one packed line at a time."""

    def __init__(self, pipe: Any) -> None:
        self.pipe = pipe
        self.buffer = b""

    def next(self) -> Any:
        """The next request, or None when the grader closed the pipe (or sent too much)."""
        while b"\n" not in self.buffer:
            chunk = self.pipe.read(65536)
            if not chunk or len(self.buffer) > MAX_REQUEST:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return wire.unpack(line)


def serve(requests: Requests, replies: Any, module: Any, path: str, output: CappedOutput) -> None:
    """Answer requests until the grader closes the pipe."""
    while True:
        request = requests.next()
        if request is None:
            return
        nonce = request.pop("nonce", "")
        reply = answer(module, request, path, output)
        reply["nonce"] = nonce
        send(replies, reply)


def main() -> None:
    path, request_fd, reply_fd, packed_settings = sys.argv[1:5]
    settings = wire.unpack(packed_settings.encode())
    request_pipe, replies = isolate_fds(int(request_fd), int(reply_fd))
    requests = Requests(request_pipe)
    hello = requests.next()
    if settings.get("drop_to_uid") is not None:
        drop_privileges(int(settings["drop_to_uid"]))
    set_limits(settings.get("limits", {}))
    output = CappedOutput(int(settings.get("print_limit", 4096)))
    module, ready = load_submission(path, output)
    if "random" in sys.modules:
        # The same file gives the same answers every run, even if it uses random unseeded.
        sys.modules["random"].seed(0)
    ready["nonce"] = hello["nonce"]
    send(replies, ready)
    if module is not None:
        serve(requests, replies, module, path, output)


if __name__ == "__main__":
    main()
