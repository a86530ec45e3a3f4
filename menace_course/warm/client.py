"""The ``menace`` command's front door: a check goes to the warm checker, or runs here.

Everything else (every other command, a check when no warm checker answers) runs
:func:`menace_course.cli.main` in this process, exactly as before. Nothing here imports
click or the grader, so a check the warm checker serves costs this process only a bare
Python start and a few small modules.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # (typing itself costs the client 6 ms)
if TYPE_CHECKING:
    import signal
    from pathlib import Path
    from typing import NoReturn

    from menace_course.warm.messages import Connection
else:
    import _signal as signal  # signal.py's C part: signal.py's enums would cost the client 1.3 ms

#: ``MENACE_WARM`` values that turn the warm checker off.
OFF = frozenset({"0", "off", "no", "false"})
#: Signals the client passes on to the check it waits for.
PASSED_ON = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def N_(text: str) -> str:
    """Mark ``text`` for the catalog (``pybabel extract -k N_``); it is translated where it is printed."""
    return text


#: What a student reads when the warm checker's copy ended without an exit code.
LOST = N_(
    "menace: the check stopped before it finished (the warm checker's process ended). "
    "This is not your mistake; run it again, or with MENACE_WARM=off to check without the warm checker."
)
#: How the warm checker is started: with this client's ``sys.path``, from ``/``.
_LAUNCH = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from menace_course.warm.server import main; main(sys.argv[2])"
)


def main() -> None:
    """Run ``menace``: hand a check to the warm checker when one can take it."""
    argv = sys.argv[1:]
    if wanted(argv):
        try:
            code = check_warm(argv)
        except KeyboardInterrupt:  # before the check had started: nothing ran
            from menace_course.language import gettext as _

            print(_("menace: stopped."), file=sys.stderr)
            sys.exit(130)
        if code is not None:
            end_now(code)
    from menace_course.cli import main as run_here

    run_here()


def end_now(code: int) -> NoReturn:
    """End this process with ``code`` once the warm checker has run the check.

    The check ran in the warm checker's copy; this process only waited, so nothing of it
    needs tidying: its streams are flushed and it ends without Python's shutdown (which
    frees every module's objects one by one, about 2 ms of every warm check).
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # (a closed pipe: nothing of ours was waiting in it)
            pass
    os._exit(code & 0xFF)


def wanted(argv: list[str]) -> bool:
    """A check, by a plainly started ``menace`` on Linux, with the warm checker not turned off.

    (Linux: the warm checker's peer check uses ``SO_PEERCRED``, and forking a process with
    frameworks loaded is not safe on macOS.)
    """
    if sys.platform != "linux" or os.environ.get("MENACE_WARM", "").lower() in OFF:
        return False
    if not argv or argv[0] != "check":
        return False
    # The console script (python, script, ...) or python -m menace_course: no interpreter
    # options, which a warm checker would not share.
    started = sys.orig_argv[1:3]
    return bool(started) and (not started[0].startswith("-") or started == ["-m", "menace_course"])


def check_warm(argv: list[str]) -> int | None:
    """Run ``menace ARGV`` in a warm checker: its exit code, or None to run it here instead.

    When no warm checker answers, one is started for the next check and None is returned.
    """
    from menace_course.warm.stamp import socket_file, stamp

    try:
        own = stamp()
        path = socket_file(own)
        if path is None or not _has_std_fds():
            return None
        connection = _connect(path)
        if connection is None:
            start_warm_checker(path)
            return None
        with connection:
            return _check_through(connection, own, argv)
    except OSError:  # (a folder that vanished, say): the check runs here and says what is wrong
        return None


def _check_through(connection: Connection, own: str, argv: list[str]) -> int | None:
    from menace_course.warm.messages import MessageError, receive, send

    umask = os.umask(0o022)
    os.umask(umask)
    request = {
        "op": "check",
        "stamp": own,
        "argv": argv,
        "program": sys.argv[0],
        # How click names the program in --help: ``menace`` or ``python -m menace_course``.
        "main_package": getattr(sys.modules["__main__"], "__package__", None),
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "umask": umask,
        "streams": [[stream.encoding, stream.errors] for stream in (sys.stdin, sys.stdout, sys.stderr)],
    }
    try:
        send(connection, request, fds=[0, 1, 2])
        started, _ = receive(connection)
    except (OSError, MessageError):
        return None  # nothing ran yet: check here
    pid = started.get("pid")
    if not isinstance(pid, int):
        return None  # outdated (the stamps differ): check here
    for number in PASSED_ON:
        signal.signal(number, lambda signum, _frame: _pass_on(pid, signum))
    try:
        ended, _ = receive(connection)
    except (OSError, MessageError):
        ended = {}
    code = ended.get("exit")
    if not isinstance(code, int):
        from menace_course import language

        print(language.gettext(LOST), file=sys.stderr)
        return 1
    return code


def _pass_on(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _has_std_fds() -> bool:
    """Fds 0-2 are open, with text streams over them (a daemon's child may have none)."""
    streams = (sys.stdin, sys.stdout, sys.stderr)
    if any(stream is None or not getattr(stream, "encoding", None) for stream in streams):
        return False
    try:
        for fd in (0, 1, 2):
            os.fstat(fd)
    except OSError:
        return False
    return True


def _connect(path: Path | str) -> Connection | None:
    import _socket

    from menace_course.warm.messages import Connection

    connection = Connection(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.connect(str(path))
    except OSError:
        connection.close()
        return None
    return connection


def start_warm_checker(path: Path | str) -> None:
    """Start a warm checker for ``path`` in the background, detached from this terminal.

    It shares nothing with this process: its own session, ``/`` as its folder, and
    ``/dev/null`` for stdin, stdout and stderr (so a caller waiting for this command's
    output never waits for it).
    """
    import json
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, json.dumps(sys.path), str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            start_new_session=True,
        )
    except OSError:
        pass  # no warm checker: every check runs in its own process, as it always could


def running() -> list[Path]:
    """The sockets of this user's warm checkers (any stamp; some may have stopped)."""
    from menace_course.cache import trusted_folder

    folder = trusted_folder("warm")
    return sorted(folder.glob("*.sock")) if folder is not None else []


def ask(path: Path, op: str) -> dict[str, object] | None:
    """Send a warm checker a ``status`` or ``stop`` request: its answer, or None if none answers."""
    from menace_course.warm.messages import MessageError, receive, send

    connection = _connect(path)
    if connection is None:
        return None
    with connection:
        connection.settimeout(5.0)
        try:
            send(connection, {"op": op})
            answer, _ = receive(connection)
        except (OSError, MessageError):
            return None
    return answer
