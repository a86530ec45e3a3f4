"""A started, confined interpreter that forks a fresh sandbox for each submission.

Three quarters of a sandbox's start is Python's own (``python -I -S -B -c pass`` costs
about 15 ms of CPU; bubblewrap with all its arguments about 2 ms), and only a fork from an
interpreter that has already started saves it. So a grader process keeps one **zygote**: a
bubblewrap sandbox like every other (the same read-only view of ``/usr`` and the Python,
site-packages hidden, no network, its own pid and IPC namespaces, a clean environment),
running the harness in ``--zygote`` mode with ``CAP_SYS_ADMIN`` kept for itself alone. For
each submission it forks a process that makes the box (``harness.start_box``):

1. new mount, pid, IPC, network and UTS namespaces;
2. a private, size-limited ``/tmp``;
3. the submission's folder, and nothing else of the grader's, at ``/box``, read-only;
4. the pid namespace's first process (the box's "init"), which forks the harness.

Then the harness, before it reads the first message, is moved as always: fds to
``/dev/null``; then (``confine``) it drops to ``nobody`` when root, gives up every
capability, sets the resource limits and installs the seccomp filter, all before the
submission's first line runs. The box's init gives up its capabilities too and only waits.

What holds, as with a sandbox started from scratch:

* **One sandbox per submission.** A box is forked from the zygote, which has run no
  student code and holds nothing of any submission, test or answer; nothing one box does
  reaches the zygote (its own namespaces, its own ``/tmp``, a read-only root) or the next
  box (``tests/check/test_nothing_left_behind.py`` runs through it).
* **Everything a box started dies with it**: killing the box's init (through a pidfd the
  grader holds) ends its whole pid namespace.
* **The same limits and the same clocks**: the limits are set by the harness, in the box;
  the starvation clock reads the harness's own ``schedstat`` (its host pid comes from the
  pidfd).
* **The same exit codes**: the box's init reports how the harness ended, as bubblewrap
  does (``N``, or ``128 + signal``).

The grader talks to the zygote over a ``SOCK_SEQPACKET`` socket: one datagram a box, with
the box's control socket, its two pipes and the complaints file attached (``SCM_RIGHTS``).
A datagram is delivered whole, so copies of a grader made by ``fork`` may share one
zygote. A box whose grader goes (closes the box, or dies) ends: its init watches the
control socket. Grader processes that check file after file use a zygote (:func:`enable`,
called where they keep spares), and so do the warm checker's copies, from the warm
checker's own (:func:`prepare`); a one-shot ``menace check`` starts its sandbox from
scratch. ``MENACE_ZYGOTE=off`` starts every sandbox from scratch (the bench does, to
compare: docs/scaling.md, "The zygote").
"""

from __future__ import annotations

import atexit
import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from menace_course.errors import SandboxUnavailable
from menace_course.limits import Limits
from menace_course.sandbox import wire
from menace_course.sandbox.launch import box_settings, bwrap_base, python_command
from menace_course.sandbox.outcomes import SandboxFailure

#: The environment variable that turns the zygote off (``off``): every sandbox starts from scratch.
SWITCH = "MENACE_ZYGOTE"
#: How long a box may take to be made before the zygote is called broken.
START_SECONDS = 10.0
#: After a zygote fails to start, sandboxes start from scratch for this long before it is tried again.
RETRY_SECONDS = 60.0


class BoxGone(SandboxFailure):
    """The zygote did not make the box (it is dead or broken): start the sandbox from scratch."""


class Box:
    """One submission's sandbox, made by the zygote: what ``subprocess.Popen`` is for a plain one.

    The grader is not the harness's parent, so it holds pidfds instead: one for the box's
    init (killing it ends the box) and one for the harness (its host :attr:`pid`). The
    harness's exit status comes from the box's init, on the box's control socket.
    """

    def __init__(self, control: socket.socket) -> None:
        """Wrap the grader's end of a box's control socket (the zygote has the other end)."""
        self._control = control
        self._init_fd = -1
        self._harness_fd = -1
        self.pid = 0  #: the harness's pid as this process sees it (0 until the box is made)
        self.returncode: int | None = None
        self._killed = False
        self._started = False

    def started(self, seconds: float = START_SECONDS) -> bool:
        """Wait for the box's pidfds; False when the box was never made (its complaint is on file)."""
        if self._started:
            return self._init_fd >= 0
        self._started = True
        if not _readable(self._control.fileno(), seconds):
            self._end(-signal.SIGKILL)
            raise BoxGone("the zygote made no box in time")
        try:
            message, fds, _flags, _address = socket.recv_fds(self._control, 16, 2)
        except OSError:
            message, fds = b"", []
        if message != b"started" or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            self._end(70)
            return False
        self._init_fd, self._harness_fd = fds
        self.pid = _pid_of(self._harness_fd)
        return True

    def poll(self) -> int | None:
        """The harness's exit status if the box has ended, else None (never blocks)."""
        if self.returncode is None and self.started() and _readable(self._control.fileno(), 0):
            self._read_status()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait until the box has ended, everything in it too.

        Raises:
            subprocess.TimeoutExpired: it had not ended within ``timeout`` seconds.
        """
        end = None if timeout is None else time.monotonic() + timeout
        if self.started():
            while self.returncode is None:
                left = None if end is None else max(0.0, end - time.monotonic())
                if not _readable(self._control.fileno(), left):
                    raise subprocess.TimeoutExpired("box", timeout or 0.0)
                self._read_status()
            # The harness itself, and every process of its namespace, have ended too.
            left = None if end is None else max(0.0, end - time.monotonic())
            if not _readable(self._harness_fd, left) or not _readable(self._init_fd, left):
                raise subprocess.TimeoutExpired("box", timeout or 0.0)
        assert self.returncode is not None
        self._close_fds()
        return self.returncode

    def kill(self) -> None:
        """Kill the box: its init, and with it every process of its pid namespace."""
        try:
            if self.returncode is not None or not self.started():
                return
        except BoxGone:
            return  # never made: nothing to kill
        self._killed = True
        try:
            signal.pidfd_send_signal(self._init_fd, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _read_status(self) -> None:
        try:
            status = self._control.recv(16)
        except OSError:
            status = b""
        if len(status) == 4:
            code = os.waitstatus_to_exitcode(int.from_bytes(status, "little"))
            self._end(code if code >= 0 else 128 - code)  # as bubblewrap reports a signal
        else:
            self._end(-signal.SIGKILL)  # the box's init was killed (by us, or the system)

    def _end(self, code: int) -> None:
        self.returncode = -signal.SIGKILL if self._killed else code
        self._control.close()

    def _close_fds(self) -> None:
        for fd in (self._init_fd, self._harness_fd):
            if fd >= 0:
                os.close(fd)
        self._init_fd = self._harness_fd = -1


class Zygote:
    """The zygote of this grader process (and its forked copies): see the module's docstring."""

    def __init__(self, root: Path, process: subprocess.Popen[bytes], server: socket.socket) -> None:
        """Keep a started zygote: its folder of boxes, its bubblewrap, the grader's socket."""
        self.root = root
        self._process = process
        self._server = server
        self._owner = os.getpid()
        self._pidfd = os.pidfd_open(process.pid)

    @classmethod
    def start(cls) -> Zygote:
        """Start a zygote: bubblewrap, then the harness waiting in ``--zygote`` mode.

        Raises:
            SandboxUnavailable: bubblewrap is not installed.
        """
        from menace_course.sandbox.child import install_harness

        root = install_harness(Path(tempfile.mkdtemp(prefix="menace-zygote-")))
        grader_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv, env = bwrap_base(Limits().tmp_bytes, zygote=True)
        argv += ["--dir", "/box", "--ro-bind", str(root), "/zygote", "--chdir", "/", "--remount-ro", "/"]
        argv += [*python_command("/zygote/harness.pyc"), "--zygote", str(zygote_end.fileno())]
        try:
            process = subprocess.Popen(
                argv,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(zygote_end.fileno(),),
                start_new_session=True,
            )
        except BaseException:
            grader_end.close()
            shutil.rmtree(root, ignore_errors=True)
            raise
        finally:
            zygote_end.close()
        return cls(root, process, grader_end)

    def alive(self) -> bool:
        """True while the zygote runs (asked through a pidfd, so a forked copy may ask too)."""
        return self._pidfd >= 0 and not _readable(self._pidfd, 0)

    def new_box_folder(self) -> Path:
        """A fresh, empty folder for one submission's files, shown to its box as ``/box``."""
        folder = self.root / secrets.token_hex(8)
        folder.mkdir(mode=0o755)
        folder.chmod(0o755)
        return folder

    def spawn(self, folder: Path, limits: Limits, fds: tuple[int, int], errors: int) -> Box:
        """Make a box for the submission in ``folder`` (see :meth:`new_box_folder`).

        ``fds`` are the harness's request and reply pipes (its ends), ``errors`` a file
        for what the box's setup complains of. Returns at once: the box is made while
        the grader goes on (:meth:`Box.started` waits for it).

        Raises:
            BoxGone: the zygote is not there to ask.
        """
        settings = box_settings(limits)
        request = {"box": folder.name, "settings": settings, "tmp_bytes": limits.tmp_bytes}
        grader_end, box_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            socket.send_fds(self._server, [wire.pack(request)], [box_end.fileno(), *fds, errors])
        except OSError as error:
            grader_end.close()
            raise BoxGone(f"the zygote is gone: {error}") from None
        finally:
            box_end.close()
        return Box(grader_end)

    def close(self) -> None:
        """Stop the zygote (its boxes end with it) and remove its folder (the owner only)."""
        if os.getpid() != self._owner:
            return
        self._server.close()
        try:
            os.killpg(self._process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self._process.wait()
        os.close(self._pidfd)
        self._pidfd = -1
        shutil.rmtree(self.root, ignore_errors=True)


_zygote: Zygote | None = None
#: when the last zygote failed to start (monotonic), to try again only after RETRY_SECONDS
_failed_at: float | None = None
#: whether this process forks its sandboxes from a zygote (:func:`enable`)
_enabled = False


def enable() -> None:
    """Fork sandboxes from a zygote from now on, in this process (one that checks file after file).

    A process that checks one file (a one-shot ``menace check``) would pay for starting a
    zygote and gain nothing: it starts its sandbox from scratch. The warm checker's copies
    share the warm checker's zygote (:func:`prepare`).
    """
    global _enabled
    _enabled = True


def enabled() -> bool:
    """True once :func:`enable` was called, unless ``MENACE_ZYGOTE`` says ``off`` (or ``0``, ``no``)."""
    return _enabled and os.environ.get(SWITCH, "on").strip().lower() not in {"off", "0", "no", "false"}


def shared() -> Zygote | None:
    """This process's zygote, started if need be (None: off, or it cannot start here now)."""
    global _zygote, _failed_at
    if not enabled():
        return None
    if _zygote is not None and _zygote.alive():
        return _zygote
    if _zygote is not None:
        _zygote.close()
        _zygote = None
    if _failed_at is not None and time.monotonic() - _failed_at < RETRY_SECONDS:
        return None
    try:
        _zygote = Zygote.start()
    except (OSError, SandboxUnavailable):
        _failed_at = time.monotonic()
        return None
    _failed_at = None
    return _zygote


def prepare() -> None:
    """Start this process's zygote now, where bubblewrap works, for the copies it will fork.

    The warm checker calls it before it forks a copy for a check: the copies then share
    its zygote (a request is one datagram, so they cannot mix) instead of each starting a
    sandbox from scratch. A copy takes its client's environment, so ``MENACE_ZYGOTE=off``
    there still starts the copy's sandbox from scratch.
    """
    from menace_course.sandbox.launch import BwrapProbe

    enable()
    if enabled() and BwrapProbe().works():
        shared()


def forget_broken() -> None:
    """The zygote made no box: stop it, and start sandboxes from scratch for a while."""
    global _zygote, _failed_at
    if _zygote is not None:
        _zygote.close()
        _zygote = None
    _failed_at = time.monotonic()


@atexit.register
def _stop() -> None:
    if _zygote is not None:
        _zygote.close()


def _readable(fd: int, seconds: float | None) -> bool:
    """True when ``fd`` is readable (a socket with data or closed, a pidfd whose process ended)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    timeout = None if seconds is None else max(0, int(seconds * 1000 + 0.999))
    while True:
        try:
            return bool(poller.poll(timeout))
        except InterruptedError:
            continue


def _pid_of(pidfd: int) -> int:
    """The pid a pidfd stands for, in this process's pid namespace (0 if it has ended)."""
    try:
        with open(f"/proc/self/fdinfo/{pidfd}", encoding="ascii") as info:
            for line in info:
                if line.startswith("Pid:"):
                    return max(0, int(line.split()[1]))
    except (OSError, ValueError):
        pass
    return 0


__all__ = ["SWITCH", "Box", "BoxGone", "Zygote", "enable", "enabled", "forget_broken", "prepare", "shared"]
