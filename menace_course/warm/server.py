"""The warm checker: a process with the grader imported that forks a copy per ``menace check``.

One runs per stamp (:mod:`~menace_course.warm.stamp`) and user; a lock file next to its
socket makes a second one started at the same moment give up. It answers three requests:
``check`` (fork; the copy runs the command and reports its exit code), ``status`` and
``stop``. It stops after ``MENACE_WARM_IDLE`` seconds without a check.

The forked copy becomes the command: it takes the client's fds 0-2 as its own, its folder,
umask, environment and arguments, rebuilds ``sys.stdin``/``stdout``/``stderr`` with the
client's encodings, and runs :func:`menace_course.cli.main` exactly as the client would
have. What the warm checker itself did before the fork is limited to imports, the catalog's
schema, whether bubblewrap works here (asked at most once a minute, by running
``bwrap ... true``), and the suites its earlier checks used, loaded from the course's files
while no check ran (:mod:`~menace_course.warm.preload`). No submission and no sandbox is
touched, so nothing of one check can reach another.
"""

from __future__ import annotations

import atexit
import fcntl
import importlib
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any, NoReturn

from menace_course.warm import preload
from menace_course.warm.messages import MessageError, receive, send
from menace_course.warm.stamp import socket_path, stamp

#: What a check needs, imported once by the warm checker (rich: for a terminal's colours;
#: jinja2.ext: the i18n extension the feedback's environment loads by name, 5 ms a check).
WARM_MODULES = (
    "menace_course.cli",
    "menace_course.commands.check",
    "menace_course.commands.options",
    "menace_course.checking.pipeline",
    "menace_course.checking.suite",
    "menace_course.checking.runner",
    "menace_course.checking.entry",
    "menace_course.feedback",
    "jinja2.ext",
    "menace_course.terminal",
    "rich.console",
    "rich.text",
)
#: Seconds without a check after which the warm checker stops (``MENACE_WARM_IDLE``).
IDLE_SECONDS = 900.0
#: How long the warm checker reuses bubblewrap's answer to whether it works here, in seconds.
PROBE_SECONDS = 60.0
#: How long the warm checker waits for a client's request once it has connected.
REQUEST_SECONDS = 5.0
_TICK = 1.0
#: How soon the warm checker looks again for a copy that ended, when suites wait to be loaded.
_SOON = 0.02
#: How many copies' environments are kept until their notes come.
_KEPT_ENVIRONMENTS = 64
#: The folder this package is imported from: with ``python``, the environment served.
_PACKAGE_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PEER_CREDENTIALS = struct.Struct("3i")  # pid, uid, gid


def main(path_text: str) -> None:
    """Serve checks on the socket at ``path_text`` until idle; give up quietly if it cannot."""
    own = stamp()
    path = Path(path_text)
    if socket_path(own) != path:
        return  # started for another stamp (the package changed meanwhile)
    lock = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another warm checker has this socket
    for name in WARM_MODULES:
        importlib.import_module(name)
    from menace_course import catalog, schema

    schema.prime(catalog.ChallengeFile)  # our classes' schema, not the course: it cannot go stale
    WarmChecker(own, path, lock, idle_seconds()).serve()


def idle_seconds() -> float:
    """``MENACE_WARM_IDLE`` (seconds), or :data:`IDLE_SECONDS` when unset or not a number."""
    try:
        return max(1.0, float(os.environ["MENACE_WARM_IDLE"]))
    except (KeyError, ValueError):
        return IDLE_SECONDS


class WarmChecker:
    """The listening side: accepts, answers ``status``/``stop``, forks for ``check``."""

    def __init__(self, own_stamp: str, path: Path, lock: int, idle: float) -> None:
        self.stamp = own_stamp
        self.path = path
        self.lock = lock
        self.idle = idle
        self.served = 0
        self.started = time.time()
        self.last_check = time.monotonic()
        self.children: set[int] = set()
        self.stopping = False
        self.probed = -PROBE_SECONDS  # when bubblewrap was last asked whether it works here
        # Each copy writes, as it ends, the suites it used (preload.note); they are loaded
        # here once no check runs, in the environment of the client of that check.
        self.notes, self.notes_to_me = os.pipe()
        os.set_blocking(self.notes, False)
        self.environments: dict[int, dict[str, str]] = {}  # the last copies' clients' environments
        self.waiting: dict[tuple[Path, str], dict[str, str]] = {}

    def serve(self) -> None:
        """Accept connections until stopped, or idle with no check running."""
        signal.signal(signal.SIGTERM, lambda *_: self._stop())
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            listener.bind(str(self.path))
        finally:
            os.umask(old_umask)
        listener.listen(64)
        listener.settimeout(_TICK)
        self.listener = listener
        try:
            while not self.stopping:
                self._reap()
                if self.waiting and not self.children:
                    self._preload()
                if not self.children and time.monotonic() - self.last_check > self.idle:
                    break
                try:
                    ready, _, _ = select.select(
                        [listener.fileno(), self.notes], [], [], _SOON if self.waiting else _TICK
                    )
                except InterruptedError:
                    continue
                if self.notes in ready:
                    self._read_notes()
                if listener.fileno() not in ready:
                    continue
                try:
                    connection, _ = listener.accept()
                except OSError:
                    continue  # interrupted by SIGTERM, or a client that gave up
                with connection:
                    self._answer(connection)
        finally:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
            listener.close()
            os.close(self.lock)
            os.close(self.notes)
            os.close(self.notes_to_me)

    def _stop(self) -> None:
        self.stopping = True

    def _reap(self) -> None:
        for pid in list(self.children):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                self.children.discard(pid)

    def _read_notes(self) -> None:
        """Take the notes of copies that ended: which suites to load, with whose environment."""
        data = b""
        while True:
            try:
                chunk = os.read(self.notes, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
        for pid, suites in preload.read_notes(data):
            environment = self.environments.pop(pid, None)
            if environment is not None:  # (a copy of ours, whose client's environment is known)
                self.waiting.update(dict.fromkeys(suites, environment))

    def _preload(self) -> None:
        """Load the suites the last checks used (no check runs now: it takes no check's CPU)."""
        waiting, self.waiting = self.waiting, {}
        for suite, environment in waiting.items():
            preload.preload([suite], environment)

    def _answer(self, connection: socket.socket) -> None:
        if not same_user(connection):
            return
        connection.settimeout(REQUEST_SECONDS)
        try:
            request, fds = receive(connection, max_fds=3)
        except (OSError, MessageError):
            return
        try:
            op = request.get("op")
            if op == "status":
                send(connection, self.status())
            elif op == "stop":
                self.stopping = True
                send(connection, {"stopping": True, "pid": os.getpid()})
            elif op == "check" and request.get("stamp") == self.stamp and len(fds) == 3:
                self._fork_check(connection, request, fds)
            else:
                send(connection, {"refused": "outdated" if op == "check" else "unknown request"})
        except OSError:
            pass
        finally:
            for fd in fds:
                os.close(fd)

    def status(self) -> dict[str, Any]:
        """What ``menace warm status`` shows."""
        return {
            "pid": os.getpid(),
            "served": self.served,
            "running": len(self.children),
            "preloaded": [[str(root), slug] for root, slug in preload.kept()],
            "since": self.started,
            "idle_seconds": self.idle,
            "socket": str(self.path),
            # Which environment it serves: what ``menace warm stop`` compares with its own.
            "python": sys.executable,
            "package": _PACKAGE_FOLDER,
        }

    def _fork_check(self, connection: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
        probe = time.monotonic() - self.probed > PROBE_SECONDS
        prepare_for_a_check(probe=probe)
        if probe:
            self.probed = time.monotonic()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            self.listener.close()
            os.close(self.lock)
            os.close(self.notes)
            run_forked_check(connection, request, fds, self.notes_to_me)
        self.children.add(pid)
        self.environments[pid] = dict(request["env"])
        while len(self.environments) > _KEPT_ENVIRONMENTS:  # (copies that sent no note)
            del self.environments[next(iter(self.environments))]
        self.served += 1
        self.last_check = time.monotonic()


def prepare_for_a_check(*, probe: bool) -> None:
    """What the warm checker does before it forks a copy for a check.

    ``probe``: ask again whether bubblewrap works here (the copies of the next minute reuse
    the answer). The zygote is started, or restarted if it died: every copy forks its
    sandbox from it.
    """
    if probe:
        from menace_course.sandbox.launch import remember_probe

        remember_probe()
    from menace_course.sandbox import zygote

    zygote.prepare()


def same_user(connection: socket.socket) -> bool:
    """True when the process at the other end runs as this process's user."""
    try:
        raw = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEER_CREDENTIALS.size)
    except OSError:
        return False
    _, uid, _ = _PEER_CREDENTIALS.unpack(raw)
    return bool(uid == os.geteuid())


# -- the forked copy ----------------------------------------------------------------------


def run_forked_check(
    connection: socket.socket, request: dict[str, Any], fds: list[int], notes: int
) -> NoReturn:
    """Become the client's ``menace`` command, run it, report its exit code, and end.

    Last, it tells the warm checker on ``notes`` which suites it used (:func:`preload.note`).
    """
    code = 1
    try:
        atexit._clear()  # the warm checker's own exit handlers are not this check's
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _take_over(request, fds)
        if not preload.wanted():
            preload.forget()
        connection.settimeout(None)
        send(connection, {"pid": os.getpid()})
        _stop_when_client_leaves(connection)
        code = _run_command(request["argv"])
    except BaseException:  # the copy must always end here, never return into the warm checker
        code = 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        try:
            send(connection, {"exit": code})
        except OSError:
            pass  # the client is gone
        try:
            atexit._run_exitfuncs()  # this check's own (its scratch folders)
            line = preload.note()
            if line:
                os.write(notes, line)
        finally:
            os._exit(0)


def _take_over(request: dict[str, Any], fds: list[int]) -> None:
    """Take the client's fds, folder, umask, environment and argv as this process's own."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    fds.clear()
    # sys.__stdout__ and the others still hold the warm checker's own streams (over the same
    # fds 0-2, which are now the client's): kept, so that nothing closes those fds.
    (in_encoding, in_errors), (out_encoding, out_errors), (err_encoding, err_errors) = request["streams"]
    sys.stdin = open(0, encoding=in_encoding, errors=in_errors, closefd=False)
    lines = 1 if os.isatty(1) else -1
    sys.stdout = open(1, "w", encoding=out_encoding, errors=out_errors, closefd=False, buffering=lines)
    sys.stderr = open(2, "w", encoding=err_encoding, errors=err_errors, closefd=False, buffering=1)
    os.chdir(request["cwd"])
    os.umask(int(request["umask"]))
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [request["program"], *request["argv"]]
    sys.modules["__main__"].__package__ = request.get("main_package")


def _stop_when_client_leaves(connection: socket.socket) -> None:
    """When the client goes away (killed, its terminal closed), stop the check as Ctrl-C would."""
    main_thread = threading.main_thread().ident
    assert main_thread is not None

    def watch() -> None:
        try:
            connection.recv(1)
        except OSError:
            pass
        signal.pthread_kill(main_thread, signal.SIGINT)

    threading.Thread(target=watch, daemon=True, name="client-watch").start()


def _run_command(argv: list[str]) -> int:
    """Run ``menace ARGV`` as the console script does; its exit code."""
    from menace_course.cli import main as run_here

    try:
        run_here(argv)
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        print(done.code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("menace: stopped.", file=sys.stderr)
        return 130
    except Exception:  # as an uncaught exception would in-process: shown, exit code 1
        traceback.print_exc()
        return 1
    return 0
