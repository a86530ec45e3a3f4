"""The trusted program that runs inside the sandbox and answers calls on a submission.

It starts before any student code (below the first process of its pid namespace: when
it finds itself that process, in the process sandbox as root, it stays it and goes on in
a child, :func:`stay_first_process`), and, in this order:

1. moves the request and reply pipes out of the student's reach: fds 0, 1 and 2 become
   ``/dev/null``, so ``input()`` gets end-of-file and prints go nowhere unless captured;
2. reads the grader's first message (the nonce its ready message must carry, and for a
   notebook where each code cell starts and ends) and the submission's source, while it
   may still read anything the grader could;
3. gives up what it can of the machine: its own IPC namespace and private scratch
   folders (as root, without bubblewrap), an unprivileged user (started as root),
   resource limits, and the seccomp filter (without bubblewrap, which applies the same
   filter itself);
4. builds everything it relies on to answer (:func:`make_server`): its own copy of the
   builtins, the codec loaded into a private namespace, the functions it calls, all held
   in closures, never looked up by name again; ``__main__`` becomes an empty module and
   the codec leaves ``sys.modules`` (so an honest submission cannot break it by chance);
5. installs an audit hook (:func:`make_guard`): a detector that refuses nothing and
   records the few events no standard library raises by itself (a second audit hook,
   every object or every thread's frame); the grader shows them to the instructor
   ("needs review");
6. imports the submission as the module ``submission`` (so ``if __name__ == "__main__"``
   code does not run), capturing what it prints, and sends the ready message; a notebook
   is run cell by cell, as Jupyter runs it (a cell that raises stops there, the next one
   runs, and the ready message lists the cells that stopped);
7. answers one request per line (``{"id", "nonce", "fn", "args"}``, packed) with
   ``{"id", "nonce", "ok": true, "result", "args_after", "printed", "integrity"}`` or
   ``{"id", "nonce", "ok": false, "error": {...}}``, the error holding only the student's
   frames (``printed`` and ``integrity`` are left out when there is nothing in them).
   The arguments are copied out the moment the call returns. A request
   ``{"id", "nonce", "again": ID}`` calls the function of call ``ID`` (the last one, if it
   returned) again on the very objects it was given, as that call left them: how the
   grader sees a changed input by its behaviour, not by this harness's word. A call
   request carrying ``"then": {"id", "nonce"}`` is followed, when it returns, by that
   "again" call at once, answered on a second line under the second id and nonce: one
   request instead of two where the grader knows the repeat will be made.

It never sees tests, references or expected values: it only calls and reports. Student
code shares this interpreter and can rewrite all of it, so nothing here is a boundary
and nothing it reports is trusted for a grade: the kernel confines the child (bubblewrap's
namespaces, seccomp, resource limits), and the grader treats every reply as the
student's output (docs/architecture.md, "The trust boundary").

Usage (by the grader, from a precompiled ``harness.pyc``):
``python -I -S -B harness.pyc SUBMISSION REQUEST_FD REPLY_FD SETTINGS`` where SETTINGS is
:func:`wire.pack` output. Requests arrive the same way; replies go back as tagged JSON.
``python -I -S -B harness.pyc --zygote SOCKET_FD`` is the zygote (:func:`zygote`): it forks
a box for each request on the socket, and each box runs the steps above
(:mod:`menace_course.sandbox.zygote` is the grader's side).
"""

from __future__ import annotations

# Imports are few and light on purpose: the harness starts once per submission, and
# inspect, importlib.util and traceback would triple its start-up time.
import builtins
import io
import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing alone would cost 5 ms
if TYPE_CHECKING:
    from typing import Any

# Every function below looks names up in this copy: a submission that patches
# builtins.len or builtins.isinstance changes its own world, not the harness's.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

MAX_REQUEST = 4 * 1024 * 1024
MAX_FRAMES = 12
MAX_ATTEMPTS = 20
#: A notebook's cells that stopped, described one by one (the rest are only counted).
MAX_CELL_ERRORS = 50
#: Audit events the detector records (each makes the report "needs review"), with why each
#: is a sign of tampering: nothing in the standard library of Python 3.11, 3.12 or 3.13
#: raises them by itself, so only code written to do so does. Frame walking, tracing,
#: ``ctypes``, ``marshal``, ``/proc``, ``signal``, building code and the rest are *not*
#: here: the standard library does each of them itself (``sys._getframe`` in namedtuple,
#: enum and typing, ``sys._getframemodulename`` from 3.12, ``code.replace`` and a new
#: ``__code__`` in ``types.coroutine``, ``sys.settrace`` in pdb behind ``breakpoint()``,
#: ``gc.get_referrers`` in trace, ``ctypes`` in 3.13's platform).
#: tests/core/test_sandbox_child.py checks this list against every standard-library module
#: importable in the sandbox, on each of those versions.
RECORDED_EVENTS = frozenset(
    {
        "sys.addaudithook",  # a second hook: to see or undo this one
        "sys._current_frames",  # every thread's frame, the harness's too
        "sys._current_exceptions",
        "gc.get_objects",  # every object in memory, the harness's too
        "gc.get_referents",
    }
)
#: Files no submission of a lesson opens, whose opening the detector records (the path kept
#: for the instructor): the machine's accounts, configuration and other people's files. The
#: sandbox has none of them to give (bubblewrap shows only ``/usr``, the Python and the
#: submission), but an attempt to read ``/etc/shadow`` is worth an instructor's look. The
#: standard library opens none of them on import (``tests/core/test_sandbox_child.py``).
WATCHED_PATHS = ("/etc/", "/root", "/home/", "/proc/", "/sys/", "/var/", "/run/", "/boot/", "/dev/")
#: Files under :data:`WATCHED_PATHS` that ordinary code does open.
UNWATCHED_PATHS = ("/dev/null", "/dev/urandom", "/dev/random", "/proc/self/", "/dev/shm/", "/var/tmp/")
#: Audit events that open a network socket: a lesson's function never needs one.
SOCKET_EVENTS = frozenset({"socket.__new__", "socket.connect", "socket.bind", "socket.sendto"})


#: The stand-in for ``sys.stdout`` (and ``sys.stderr``), as source: it is built by
#: :func:`capped_output_class` in a namespace of its own.
_CAPPED_OUTPUT = """
class CappedOutput(TextIOBase):
    def __init__(self, limit):
        self.limit = limit
        self.parts = []
        self.kept = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, text):
        text = text if type(text) is str else str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)
"""


def capped_output_class() -> Any:
    """A stand-in for ``sys.stdout`` that keeps the first ``limit`` characters printed.

    Student code reaches this class (it is ``type(sys.stdout)``, and one of
    ``object.__subclasses__()``), and through any function a function's ``__globals__``
    and ``__builtins__``, which no audit event guards. So the class is built from source
    in a namespace of its own, with builtins of its own: nothing of the harness is in
    reach from it (were it defined here, ``write.__globals__`` would hand student code
    the harness's builtins, which the codec's message writer uses, and with them every
    reply). The harness reads what was printed through :func:`make_server`'s
    ``take_printed``, which checks every part's type.
    """
    names = ("str", "type", "len", "min", "max", "__build_class__")
    namespace = {
        "__builtins__": {name: getattr(builtins, name) for name in names},
        "__name__": "menace_capped_output",
        "TextIOBase": io.TextIOBase,
    }
    exec(_CAPPED_OUTPUT, namespace)
    return namespace["CappedOutput"]


CappedOutput = capped_output_class()


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


def read_line(pipe: Any, buffer: list[bytes]) -> bytes | None:
    """One line from ``pipe`` (``buffer`` keeps what came after it); None at end of file."""
    data = buffer[0]
    while b"\n" not in data:
        chunk = pipe.read(65536)
        if not chunk or len(data) > MAX_REQUEST:
            return None
        data += chunk
    line, buffer[0] = data.split(b"\n", 1)
    return line


# -- giving up privileges and resources (trusted: no student code has run yet) -----------


def libc() -> Any:
    """The C library through ctypes (imported only without bubblewrap, and only here)."""
    import ctypes

    return ctypes, ctypes.CDLL(None, use_errno=True)


def own_ipc_namespace(applied: list[str], missing: list[str]) -> None:
    """A private SysV IPC namespace (needs root: bubblewrap gives its children one anyway)."""
    try:
        ctypes, c = libc()
        if c.unshare(0x08000000) != 0:  # CLONE_NEWIPC
            raise OSError(ctypes.get_errno(), "unshare")
        applied.append("ipc namespace")
    except (OSError, AttributeError, ImportError):
        missing.append("ipc namespace")


#: Folders every user may write to, that the process sandbox (as root) gives a private,
#: size-limited tmpfs of its own: files there would outlive the check and hold memory
#: that no limit counts (``/dev/shm`` is memory).
SCRATCH_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock")


def own_scratch(size: int, path: str, source: str, applied: list[str], missing: list[str]) -> None:
    """Private, empty scratch folders, in a mount namespace of its own (needs root).

    Without bubblewrap, the unprivileged user the child becomes could still write the
    host's ``/tmp`` and ``/dev/shm``: files that outlive the check (the next student's
    could read them) and memory outside ``RLIMIT_AS``. Here each of those folders gets a
    fresh tmpfs of ``size`` bytes that disappears with the child. The harness has read
    everything it needs by now; a folder holding the interpreter is left alone, and the
    submission (``path``, with its ``source``) is put back, read-only, where
    ``__file__`` says it is.
    """
    keep = (sys.prefix, sys.base_prefix, os.path.dirname(os.__file__))
    try:
        times = os.stat(path)
        ctypes, c = libc()
        if c.unshare(0x00020000) != 0:  # CLONE_NEWNS
            raise OSError(ctypes.get_errno(), "unshare")
        if c.mount(None, b"/", None, 0x4000 | 0x40000, None) != 0:  # MS_REC | MS_PRIVATE
            raise OSError(ctypes.get_errno(), "mount")
        options = f"size={int(size)},mode=1777".encode()
        for folder in SCRATCH_FOLDERS:
            if not os.path.isdir(folder) or any((k + "/").startswith(folder + "/") for k in keep):
                continue
            # MS_NOSUID | MS_NODEV | MS_NOEXEC
            if c.mount(b"tmpfs", folder.encode(), b"tmpfs", 2 | 4 | 8, options) != 0:
                raise OSError(ctypes.get_errno(), f"mount {folder}")
            if path.startswith(folder + "/"):
                os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
                with open(path, "w", encoding="utf-8") as file:
                    file.write(source)
                # the same file, as far as student code can tell: contents and times
                os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
                os.chmod(path, 0o444)
                os.chmod(os.path.dirname(path), 0o555)
        applied.append("private scratch folders")
    except (OSError, AttributeError, ImportError):
        missing.append("private scratch folders")


def keep_python_readable() -> None:
    """Let the interpreter go on importing from folders the dropped user could not open.

    A Python under /root (mode 0700) is readable by root only. Each library folder is
    opened now, and ``sys.path`` names it through ``/proc/self/fd/N``: the kernel checks
    only that folder's own permissions (0755 in a normal install), not its parents'.
    """
    replaced = []
    for entry in sys.path:
        try:
            fd = os.open(entry, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            replaced.append(entry)
            continue
        replaced.append(f"/proc/self/fd/{fd}")
    sys.path[:] = replaced
    sys.path_importer_cache.clear()


def drop_privileges(uid: int, keep_python: bool) -> None:
    """Become an unprivileged user (only possible, and only needed, when started as root)."""
    if os.getuid() != 0:
        return
    if keep_python:
        keep_python_readable()
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise OSError(f"still uid {os.geteuid()} after setuid({uid})")


def set_limits(limits: dict[str, Any], applied: list[str], missing: list[str]) -> None:
    """Apply resource limits where this OS has them (Windows has no ``resource`` module)."""
    try:
        import resource
    except ImportError:
        missing.extend(limits)
        return
    names = {
        "memory": "RLIMIT_AS",
        "cpu": "RLIMIT_CPU",
        "file_size": "RLIMIT_FSIZE",
        "open_files": "RLIMIT_NOFILE",
        "processes": "RLIMIT_NPROC",
        "core": "RLIMIT_CORE",
    }
    for key, value in limits.items():
        which = getattr(resource, names.get(key, ""), None)
        if value is None:
            continue
        soft, hard = (value, value) if type(value) is int else tuple(value)
        try:
            if which is None:
                raise ValueError
            resource.setrlimit(which, (soft, hard))
            applied.append(key)
        except (ValueError, OSError):
            missing.append(key)  # e.g. RLIMIT_AS on macOS; the grader reports it


def install_seccomp(program: bytes, applied: list[str], missing: list[str]) -> None:
    """Load the grader's seccomp filter (the same bytes bubblewrap's ``--seccomp`` takes)."""
    try:
        ctypes, c = libc()

        fields = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]  # struct sock_fprog
        prog = type("sock_fprog", (ctypes.Structure,), {"_fields_": fields})(len(program) // 8, program)
        if c.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "no_new_privs")
        if c.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
            raise OSError(ctypes.get_errno(), "seccomp")
        applied.append("seccomp")
    except (OSError, AttributeError, ImportError):
        missing.append("seccomp")


# -- the zygote: a started interpreter that forks one fresh sandbox per submission ------

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 8, 32, 4096, 16384
MS_PRIVATE = 1 << 18
#: The folder the grader binds its boxes under, one sub-folder a submission.
ZYGOTE_ROOT = "/zygote"
#: What a box's name may be made of (the grader makes them: ``secrets.token_hex``).
BOX_NAME_CHARACTERS = frozenset("0123456789abcdef")


def zygote(socket_fd: int) -> None:
    """Fork a fresh sandbox for each request on ``socket_fd``, until the grader closes it.

    Python starts once, here; each submission then costs a ``fork`` and a few
    namespaces instead of a new interpreter (issue 26). A request is one datagram,
    ``{"box", "settings", "tmp_bytes"}`` packed, carrying four fds: a control socket, the
    child's request and reply pipes, and the file for the sandbox's own complaints.
    :func:`start_box` does the rest in a process of its own, so the zygote itself never
    changes: every sandbox is forked from the same interpreter, which has run no student
    code and never holds a test, an answer or another submission.
    """
    codec = load_codec()
    baseline = set(sys.modules)
    import _socket
    import array  # noqa: F401  (for receive_with_fds and send_with_fds: imported once, here)
    import select  # noqa: F401  (for keep_box)

    ctypes, c = libc()  # loaded once here, not once a submission
    # Done once here rather than in every box: the codec trimmed and the garbage collected
    # (make_server would), then every object frozen out of the collector's sight, so that
    # a box's collections do not write to, and so copy, every page of the zygote's memory.
    import gc

    trim_codec(codec)
    gc.collect()
    gc.freeze()
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    server = _socket.socket(fileno=socket_fd)
    # What the zygote imported for itself leaves a box's sys.modules before student code
    # runs; ctypes and its helpers stay until confine() has used them (it drops them then).
    # (gc too: make_server imports it, as in a sandbox started from scratch.)
    kept = {"ctypes", "_ctypes", "struct", "_struct", "ctypes._endian", "gc"}
    ZYGOTE_ONLY_MODULES.update(set(sys.modules) - baseline - kept)
    while True:
        reap_exited()
        try:
            message, fds = receive_with_fds(server, 4)
        except OSError:
            return
        if not message:
            return  # the grader is gone
        if len(fds) != 4:
            for fd in fds:
                os.close(fd)
            continue
        if os.fork() == 0:
            code = 0
            try:
                server.close()
                start_box(codec, ctypes, c, message, fds)
            except SystemExit as ended:
                code = exit_status(ended)
            except BaseException as error:  # the box could not be made: the grader is told
                os.write(2, f"the sandbox could not be set up: {type(error).__name__}: {error}\n".encode())
                code = 70
            os._exit(code)
        for fd in fds:
            os.close(fd)


def receive_with_fds(sock: Any, most: int) -> tuple[bytes, list[int]]:
    """One datagram and the fds it carries (at most ``most``; more are closed by the kernel)."""
    import _socket
    import array

    size = array.array("i").itemsize
    message, ancillary, _flags, _address = sock.recvmsg(65536, _socket.CMSG_SPACE(most * size))
    fds = array.array("i")
    for level, kind, data in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % size])
    return message, list(fds)


def send_with_fds(sock: Any, message: bytes, fds: list[int]) -> None:
    """Send ``message`` with ``fds`` (``SCM_RIGHTS``) on a connected socket."""
    import _socket
    import array

    sock.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", fds))])


#: What the zygote imported for itself: it leaves a box's ``sys.modules`` before its
#: harness reads the submission (filled in by :func:`zygote`).
ZYGOTE_ONLY_MODULES: set[str] = set()


def reap_exited() -> None:
    """Collect the zygote's children that have ended (each ends once its sandbox has started)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def exit_status(ended: SystemExit) -> int:
    """The exit status Python gives a ``SystemExit`` that nothing caught."""
    if ended.code is None:
        return 0
    if type(ended.code) is int:
        return ended.code & 0xFF
    return 1


def start_box(codec: dict[str, Any], ctypes: Any, c: Any, message: bytes, fds: list[int]) -> None:
    """Make one submission's sandbox, then run it (in a process forked from the zygote).

    This process unshares mount, pid, IPC, network and UTS namespaces, gives the box a
    private ``/tmp`` of its own size, shows the submission's folder (and nothing else of
    the grader's) read-only at ``/box``, and forks the new pid namespace's first process
    (:func:`keep_box`), then ends. Every process of the box dies with that one.
    """
    control, requests, replies, errors = fds
    os.dup2(errors, 2)
    os.close(errors)
    request = codec["unpack"](message)
    box = str(request["box"])
    if not box or not set(box) <= BOX_NAME_CHARACTERS:
        raise ValueError("a box's name is hexadecimal")

    def check(result: int, what: str) -> None:
        if result != 0:
            raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")

    check(c.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS), "unshare")
    check(c.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    options = f"size={int(request['tmp_bytes'])},mode=1777".encode()
    check(c.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, options), "mount /tmp")
    folder = f"{ZYGOTE_ROOT}/{box}".encode()
    check(c.mount(folder, b"/box", None, MS_BIND, None), "bind /box")
    flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
    check(c.mount(None, b"/box", None, flags, None), "remount /box read-only")
    # The other boxes' folders go out of sight under an empty, read-only tmpfs (umount
    # cannot: as an ordinary user, bubblewrap's mounts are locked in a box's namespace).
    hidden = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    check(
        c.mount(b"tmpfs", ZYGOTE_ROOT.encode(), b"tmpfs", hidden, b"size=4k,mode=0555"), f"hide {ZYGOTE_ROOT}"
    )
    os.chdir("/box")
    if os.fork() == 0:
        keep_box(codec, ctypes, c, control, requests, replies, str(request["settings"]))


def keep_box(
    codec: dict[str, Any], ctypes: Any, c: Any, control: int, requests: int, replies: int, settings: str
) -> None:
    """Be the box's first process: start the harness below it, tell the grader, wait.

    The first process of a pid namespace ignores every signal it has no handler for, and
    its death ends the namespace: so the harness runs below it, where signals and crashes
    behave as they would in a process of its own (as under bubblewrap's own init). This
    process gives the grader a pidfd for itself (killing it kills the whole box) and one
    for the harness (whose host pid the starvation clock reads), gives up every
    capability, and reports how the harness ended: the grader is not its parent.
    """
    harness = os.fork()
    if harness == 0:
        os.close(control)
        for name in ZYGOTE_ONLY_MODULES:
            sys.modules.pop(name, None)
        code = 0
        try:
            run("/box/submission.py", requests, replies, settings, codec)
            finish_interpreter()
        except SystemExit as ended:
            code = exit_status(ended)
        except BaseException:
            code = 1
        os._exit(code)
    import _socket
    import select

    os.close(requests)
    os.close(replies)
    messenger = _socket.socket(fileno=control)
    pidfds = [os.pidfd_open(os.getpid()), os.pidfd_open(harness)]
    send_with_fds(messenger, b"started", pidfds)
    if c.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE 0: no process of its user may trace it
        raise OSError(ctypes.get_errno(), "not dumpable")
    drop_capabilities()
    # Wait for the harness to end, or for the grader to go: a grader that closed its end
    # (or died, and the kernel closed it) wants no more of this box, so it ends here, and
    # every process of the box with it (the grader is not the box's parent: nothing else
    # would stop a box whose grader was killed).
    watch = select.poll()
    watch.register(pidfds[1], select.POLLIN)
    watch.register(control, select.POLLIN)
    while True:
        try:
            ready = {fd for fd, _event in watch.poll()}
        except InterruptedError:
            continue
        if pidfds[1] in ready:
            break
        if control in ready:
            os._exit(0)
    _pid, status = os.waitpid(harness, 0)
    messenger.send(status.to_bytes(4, "little"))
    os._exit(0)


def finish_interpreter() -> None:
    """What Python does at a normal exit that ``os._exit`` would skip: threads, then atexit."""
    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()
    import atexit

    atexit._run_exitfuncs()


def drop_capabilities() -> None:
    """Give up every capability (effective, permitted, inheritable and ambient), and check.

    In the zygote's sandbox the processes hold ``CAP_SYS_ADMIN`` (to make each box's
    namespaces); nothing of a box may keep it.
    """
    ctypes, c = libc()
    if c.prctl(47, 4, 0, 0, 0) != 0:  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
        raise OSError(ctypes.get_errno(), "clear ambient capabilities")
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    if c.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset")
    if c.capget(header, data) != 0 or any(data):
        raise OSError("a capability is still held after capset")


# -- the detector: an audit hook that records what only tampering does -------------------


def make_guard(attempts: list[dict[str, str]]) -> Any:
    """The audit hook: it records each event of :data:`RECORDED_EVENTS`, and refuses nothing.

    It is a detector, never a boundary: student code shares this interpreter and can
    reach, rewrite or outrun anything here (issue 20 found three ways to do so before the
    harness noticed). What keeps the machine and the other submissions safe is the
    kernel's: bubblewrap's namespaces, the seccomp filter, the resource limits. What keeps
    a grade honest is that no grade rests on what the child says about itself (the
    arguments after a call are also checked by calling again: see
    ``checking/testing.py``'s ``expect_unchanged``). A recorded attempt only makes the
    report "needs review", for the instructor to look at.

    It never calls anything a submission could have replaced: it compares the event
    name (a ``str`` from the interpreter) and appends a new dict to a list.
    """
    recorded = RECORDED_EVENTS
    sockets = SOCKET_EVENTS
    watched = WATCHED_PATHS
    # The interpreter's own folders are read by every import (a pyenv Python lives in /root).
    prefixes = (sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.__file__))
    unwatched = UNWATCHED_PATHS + tuple(folder.rstrip("/") + "/" for folder in prefixes if folder)
    len_, type_, str_, bytes_ = len, type, str, bytes
    starts, decode = str.startswith, bytes.decode

    def note(event: str, detail: str) -> None:
        entry = {"event": event, "detail": detail}
        if len_(attempts) < MAX_ATTEMPTS and entry not in attempts:
            attempts.append(entry)

    def guard(event: str, args: tuple[Any, ...]) -> None:
        if event in recorded:
            note(event, "")
        elif event in sockets:
            note("socket", "")
        elif event == "open" and args:
            path = args[0]
            if type_(path) is bytes_:
                path = decode(path, "utf-8", "replace")
            if type_(path) is str_ and starts(path, watched) and not starts(path, unwatched):
                note("open", path[:120])

    return guard


# -- the server: everything it uses is captured before student code loads ------------------


#: The codec's grader-side half (decoding, and its classes), which no sandbox needs.
CODEC_GRADER_SIDE = (
    *("Opaque", "WireError", "decode", "_items", "loads", "_no_constant", "pack"),
    *("argument_key", "reply_head", "_decoder", "_json_module", "_DECODER", "_SELF_DECODING"),
)


def trim_codec(codec: dict[str, Any]) -> bool:
    """Drop the codec's grader-side half; True if there was any (then collect the garbage).

    Dropped so that no class of the codec is left for ``object.__subclasses__()`` to lead
    to its namespace: the classes go once the garbage collector has run.
    """
    dropped = [codec.pop(name, None) for name in CODEC_GRADER_SIDE]
    return any(item is not None for item in dropped)


def make_server(
    path: str,
    source: str,
    requests: Any,
    replies: Any,
    line_buffer: list[bytes],
    codec: dict[str, Any],
    settings: dict[str, Any],
    attempts: list[dict[str, str]],
) -> Any:
    """Build the closure that loads the submission and answers calls until the pipe closes.

    Every name it uses is a local of this function, captured now: patching a module, a
    builtin or this harness's globals afterwards changes nothing it does.
    """
    import _ast
    import gc
    import types

    encode, dumps, unpack = codec["encode"], codec["dumps"], codec["unpack"]
    if trim_codec(codec):
        gc.collect()  # (a zygote trimmed it, collected and froze before it forked this box)

    gc_disable, gc_enable = gc.disable, gc.enable
    tb_of = BaseException.__dict__["__traceback__"].__get__
    code_of = types.FunctionType.__dict__["__code__"].__get__
    defaults_of = types.FunctionType.__dict__["__defaults__"].__get__
    module_dict: Any = vars(types.ModuleType)["__dict__"].__get__
    function_type, code_type, module_type = types.FunctionType, types.CodeType, types.ModuleType
    real_builtins = builtins
    sys_ = sys
    modules = sys.modules
    reply_write = replies.write
    source_lines = source.splitlines()
    output = CappedOutput(int(settings.get("print_limit", 4096)))
    base_exception = BaseException
    syntax_error = SyntaxError
    exact_str, exact_int, exact_list, exact_dict = str, int, list, dict
    dict_get, dict_items = dict.get, dict.items
    next_line = read_line

    def take_printed() -> dict[str, Any]:
        parts, dropped = output.parts, output.dropped
        text = "".join([p for p in parts if type(p) is exact_str]) if type(parts) is exact_list else ""
        output.parts, output.kept, output.dropped = [], 0, 0
        return {"text": text, "dropped": dropped if type(dropped) is exact_int and dropped >= 0 else 0}

    def student_frames(error: BaseException) -> list[dict[str, Any]]:
        """The traceback entries inside the submission file only, newest last, repeats collapsed."""
        found = []
        tb = tb_of(error)
        while tb is not None:
            code = tb.tb_frame.f_code
            found.append((code.co_filename, code.co_name, tb.tb_lineno))
            tb = tb.tb_next
        frames: list[dict[str, Any]] = []
        for filename, function, line in found:
            if type(filename) is not exact_str or filename != path or type(line) is not exact_int:
                continue
            text = source_lines[line - 1].strip() if 0 < line <= len(source_lines) else ""
            frame = {"line": line, "function": exact_str(function)[:200], "code": text[:200]}
            if frames and {k: frames[-1][k] for k in frame} == frame:
                frames[-1]["repeats"] = frames[-1].get("repeats", 1) + 1
            else:
                frames.append(frame)
        if type(error) is syntax_error and error.filename == path:
            frames.append(
                {
                    "line": error.lineno if type(error.lineno) is exact_int else 0,
                    "function": "<module>",
                    "code": (error.text if type(error.text) is exact_str else "").rstrip()[:200],
                    "column": error.offset if type(error.offset) is exact_int else 0,
                }
            )
        return frames[-MAX_FRAMES:]

    def describe_error(error: BaseException) -> dict[str, Any]:
        """Plain facts about an exception raised by student code."""
        frames = student_frames(error)
        try:
            kind = type(error).__name__
            kind = kind if type(kind) is exact_str else "Exception"
        except base_exception:
            kind = "Exception"
        try:
            message = str(error)
            message = message if type(message) is exact_str else "?"
        except base_exception:
            message = "?"
        return {"type": kind[:200], "message": message[:500], "frames": frames}

    def describe_functions(module: Any) -> dict[str, Any]:
        """Every function the submission defines at top level, with what its signature accepts."""
        found: dict[str, Any] = {}
        for name, value in list(dict_items(module_dict(module)))[:10_000]:
            if type(name) is not exact_str or name.startswith("__") or not callable(value):
                continue
            if type(value) is not function_type:
                found[name] = {"params": [], "min": 0, "max": None, "is_function": False}
                continue
            code, defaults = code_of(value), defaults_of(value) or ()
            if type(code) is not code_type:
                continue
            positional = [exact_str(p)[:100] for p in code.co_varnames[: code.co_argcount]][:255]
            found[name] = {
                "params": positional,
                "min": max(0, len(positional) - len(defaults)),
                "max": None if code.co_flags & 0x04 else len(positional),  # CO_VARARGS
                "is_function": True,
            }
        return found

    reported = [0]

    def send(message: dict[str, Any]) -> None:
        if len(attempts) > reported[0]:  # what is new since the last message (none: no field)
            message["integrity"] = attempts[reported[0] :]
            reported[0] = len(attempts)
        printed = message.get("printed")
        if type(printed) is exact_dict and not printed["text"] and not printed["dropped"]:
            del message["printed"]  # nothing printed: the grader reads a missing record so
        try:
            reply_write(dumps(message))
        except (ValueError, TypeError, RecursionError, MemoryError):
            error = {"type": "UnsendableResult", "message": "the result could not be sent", "frames": []}
            reply_write(
                dumps({"id": message.get("id"), "nonce": message.get("nonce"), "ok": False, "error": error})
            )

    def load(ready_nonce: str, sandbox: dict[str, Any]) -> Any:
        module = module_type("submission")
        namespace = module_dict(module)
        namespace["__file__"] = path
        namespace["__builtins__"] = real_builtins  # the student's world, not the harness's copy
        modules["submission"] = module
        sys_.stdout = output
        cell_errors: list[dict[str, Any]] | None = None
        try:
            if cell_spans is not None:
                cell_errors = run_cells(namespace)
            else:
                code = compile(source, path, "exec")
                gc_enable()
                try:
                    exec(code, namespace)
                finally:
                    gc_disable()
        except base_exception as error:  # SystemExit, EOFError from input(), MemoryError, ...
            error_facts = describe_error(error)
            send(
                {
                    "nonce": ready_nonce,
                    "ready": False,
                    "error": error_facts,
                    "printed": take_printed(),
                    "sandbox": sandbox,
                }
            )
            return None
        random = modules.get("random")
        if type(random) is module_type and random.__name__ == "random":
            try:  # the same file gives the same answers every run, even with random unseeded
                random.seed(0)
            except base_exception:
                pass
        functions = describe_functions(module)
        ready = {"nonce": ready_nonce, "ready": True, "functions": functions, "printed": take_printed()}
        if cell_errors is not None:
            ready["cell_errors"], ready["cells_failed"] = cell_errors[:MAX_CELL_ERRORS], len(cell_errors)
        ready["sandbox"] = sandbox
        send(ready)
        return namespace

    # -- a notebook: its cells run one by one, as Jupyter runs them (trusted: set up now) --
    cell_spans = settings.get("cells")
    ast_module = _ast.Module

    def notebook_cells() -> list[tuple[int, Any]]:
        """Each code cell as something ``compile`` takes, with the notebook's line numbers.

        The joined code is parsed once and its statements shared out by cell. Should that
        fail where each cell alone parses (``from __future__`` in a later cell), each cell is
        compiled from its own text, pushed down to its line with blank lines.
        """
        spans = [(int(first), int(last)) for first, last in cell_spans or ()]
        try:
            tree: Any = compile(source, path, "exec", 0x400, True)  # PyCF_ONLY_AST
        except base_exception:
            return [
                (index, "\n" * (first - 1) + "\n".join(source_lines[first - 1 : last]))
                for index, (first, last) in enumerate(spans)
            ]
        groups: list[list[Any]] = [[] for _ in spans]
        index = 0
        for statement in tree.body:  # both in order: one pass
            while index < len(spans) - 1 and statement.lineno > spans[index][1]:
                index += 1
            groups[index].append(statement)
        return [(i, ast_module(body=group, type_ignores=[])) for i, group in enumerate(groups) if group]

    def run_cells(namespace: dict[str, Any]) -> list[dict[str, Any]]:
        """Run each cell once, in order; a cell that raises stops there and the next one runs."""
        errors: list[dict[str, Any]] = []
        flags = 0
        for index, cell in notebook_cells():
            try:
                code = compile(cell, path, "exec", flags, True)
                flags |= code.co_flags & 0x1000000  # `from __future__ import annotations` holds on
                gc_enable()
                try:
                    exec(code, namespace)
                finally:
                    gc_disable()
            except base_exception as error:  # Jupyter reports it under the cell and goes on
                described = len(errors) < MAX_CELL_ERRORS
                errors.append({"cell": index, "error": describe_error(error)} if described else {})
        return errors

    #: (call id, function, argument objects) of the last call that returned, for "again"
    kept: list[Any] = [None]

    def answer(namespace: dict[str, Any], request: dict[str, Any], nonce: str) -> dict[str, Any]:
        call_id = request.get("id")
        held, kept[0] = kept[0], None
        if "again" in request:  # the same function, on the very objects the last call was given
            if held is None or held[0] != request["again"]:
                error = {"type": "NothingKept", "message": "", "frames": []}
                return {"id": call_id, "nonce": nonce, "ok": False, "error": error}
            function, args = held[1], held[2]
        else:
            name = request.get("fn")
            function = dict_get(namespace, name) if type(name) is exact_str else None
            if function is None or not callable(function):
                error = {"type": "MissingFunction", "message": "", "frames": []}
                return {"id": call_id, "nonce": nonce, "ok": False, "error": error}
            args = request.get("args")
            args = args if type(args) is exact_list else []
        sys_.stdout = output
        gc_enable()
        try:
            result = function(*args)
        except base_exception as error:
            gc_disable()
            return {
                "id": call_id,
                "nonce": nonce,
                "ok": False,
                "error": describe_error(error),
                "printed": take_printed(),
            }
        gc_disable()  # first, before anything allocates: no finalizer may touch args now
        try:
            args_after = [encode(arg) for arg in args]
            encoded = encode(result)  # may run the student's __repr__: args are already copied
        except base_exception as error:  # e.g. RecursionError on a self-containing list
            return {
                "id": call_id,
                "nonce": nonce,
                "ok": False,
                "error": describe_error(error),
                "printed": take_printed(),
            }
        kept[0] = (call_id, function, args)
        return {
            "id": call_id,
            "nonce": nonce,
            "ok": True,
            "result": encoded,
            "args_after": args_after,
            "printed": take_printed(),
        }

    def serve(ready_nonce: str, sandbox: dict[str, Any]) -> None:
        gc_disable()
        namespace = load(ready_nonce, sandbox)
        if namespace is None:
            return
        while True:
            line = next_line(requests, line_buffer)
            if line is None:
                return
            request = unpack(line)
            nonce = request.pop("nonce", "")
            then = request.pop("then", None)  # {"id", "nonce"}: call again at once if it returns
            reply = answer(namespace, request, nonce)
            send(reply)
            if type(then) is exact_dict and reply.get("ok") is True:
                again = {"id": then.get("id"), "again": request.get("id")}
                send(answer(namespace, again, then.get("nonce", "")))

    return serve


def main() -> None:
    if sys.argv[1] == "--zygote":
        zygote(int(sys.argv[2]))
        return
    if os.getpid() == 1:
        stay_first_process()
    path, request_fd, reply_fd, packed_settings = sys.argv[1:5]
    run(path, int(request_fd), int(reply_fd), packed_settings, load_codec())


def stay_first_process() -> None:
    """As the first process of a pid namespace, fork: the harness goes on in the child.

    This is process mode as root, under ``unshare --pid --fork``. The first process of a
    pid namespace ignores every signal it has no handler for when it comes from inside the
    namespace, so as that process a submission's ``os.kill(os.getpid(), signal.SIGKILL)``
    or ``SIGTERM`` did nothing and ``os.abort()`` ended as a SIGSEGV, where under
    bubblewrap (whose own init is that process) each ends the submission. This process
    keeps none of the grader's pipes, waits, and ends as the harness ended: its exit
    code, or ``128 + N`` for a signal N, as bubblewrap's init reports it. Returns in the
    child only.
    """
    harness = os.fork()
    if harness == 0:
        return
    os.closerange(0, 65536)  # the grader sees end of file when the harness ends, as before
    _pid, status = os.waitpid(harness, 0)
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def load_codec() -> dict[str, Any]:
    """The codec, compiled by the grader, in a namespace of its own (never imported)."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [entry for entry in sys.path if entry != here]  # no `import harness`
    import marshal

    with open(os.path.join(here, "wire.pyc"), "rb") as file:
        wire_code = marshal.loads(file.read()[16:])
    codec: dict[str, Any] = {"__builtins__": __builtins__, "__name__": "menace_child_codec"}
    exec(wire_code, codec)
    return codec


def run(path: str, request_fd: int, reply_fd: int, packed_settings: str, codec: dict[str, Any]) -> None:
    """Serve one submission: read the first message, confine, load, answer until end of file."""
    requests, replies = isolate_fds(request_fd, reply_fd)
    buffer = [b""]
    hello = read_line(requests, buffer)
    first = codec["unpack"](hello) if hello is not None else {}
    ready_nonce = first.get("nonce", "")
    try:
        cells = first.get("cells")
        serve, confinement = confine(path, codec, packed_settings, requests, replies, buffer, cells)
    except Exception as error:
        # Reported as the sandbox's failure: the grader gives a grader error, never a zero.
        message = {"nonce": ready_nonce, "setup_error": f"{type(error).__name__}: {error}"[:500]}
        replies.write(codec["dumps"](message))
        return
    del codec
    serve(ready_nonce, confinement)


def confine(
    path: str,
    codec: dict[str, Any],
    packed_settings: str,
    requests: Any,
    replies: Any,
    buffer: list[bytes],
    cells: Any = None,
) -> tuple[Any, dict[str, Any]]:
    """Everything between the grader's first message and the first line of student code.

    ``cells`` (from that first message) are a notebook's code cells, to run one by one.
    Returns the server (see :func:`make_server`) and what was applied, for the ready message.
    """
    settings = codec["unpack"](packed_settings.encode())
    settings["cells"] = cells
    applied: list[str] = []
    missing: list[str] = []
    with open(path, encoding="utf-8") as file:  # read while the harness may still read it
        source = file.read()
    if settings.get("own_ipc"):
        own_ipc_namespace(applied, missing)
    if settings.get("own_scratch"):
        own_scratch(int(settings["own_scratch"]), path, source, applied, missing)
    uid = settings.get("drop_to_uid")
    if uid is not None:
        drop_privileges(int(uid), bool(settings.get("keep_python")))
    if settings.get("drop_capabilities"):
        drop_capabilities()  # a zygote's box: raises (a grader error) if one is kept
        applied.append("no capabilities")
    set_limits(settings.get("limits", {}), applied, missing)
    program = settings.get("seccomp")
    if program:
        install_seccomp(bytes.fromhex(program), applied, missing)
    attempts: list[dict[str, str]] = []
    serve = make_server(path, source, requests, replies, buffer, codec, settings, attempts)
    # Nothing of the harness stays where student code can look it up.
    for name in ("__main__", "wire", "ctypes", "_ctypes", "ctypes._endian", "struct", "_struct", "resource"):
        sys.modules.pop(name, None)
    sys.modules["__main__"] = type(sys)("__main__")
    sys.addaudithook(make_guard(attempts))
    return serve, {"uid": os.getuid(), "applied": applied, "missing": missing}


if __name__ == "__main__":
    main()
