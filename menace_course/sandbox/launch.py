"""Start the sandboxed child: with bubblewrap where it works, else as a plain process.

``bwrap`` gives the child new user (or, as root, dropped-uid), pid, net, ipc and uts
namespaces, a read-only root with only the interpreter, the harness and the submission
visible, every site-packages folder hidden, a tiny ``/tmp``, no ``/proc`` and no network.
``process`` is a plain subprocess with resource limits, a scratch folder and a clean
environment: enough for a student checking their own file, not a security boundary. Run
as root, it keeps children apart from each other too: each child gets a uid of its own
(:func:`lease_uid`, one per child alive at a time, never an account's), and its own pid
namespace with a fresh ``/proc`` (``unshare --pid --mount-proc``), so it can neither see
nor signal another submission's child.
The measured recipe and the traps behind each flag are in the project's research notes.
"""

from __future__ import annotations

import functools
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from menace_course.errors import SandboxUnavailable
from menace_course.limits import Limits
from menace_course.models import SandboxKind
from menace_course.sandbox import seccomp, wire

HARNESS_DIR = Path(__file__).resolve().parent
#: The uid the child runs as when the grader is root (the conventional ``nobody``).
NOBODY = 65534
#: As root, a process-mode child runs as ``UID_BASE + slot``: a uid of its own, no account's.
UID_BASE = 1_900_000_000
#: How many process-mode children may run at once as root, each with its own uid.
UID_SLOTS = 4096
#: Where the uid leases are kept (a lock file per uid, held while its child runs).
LEASE_FOLDER = Path("/run/menace-course/uids")


class UidLease:
    """A uid held for one child while it runs: an exclusive ``flock`` on the uid's file.

    The lock belongs to this grader process's open file, never to the child's (a child
    that held it could let it go while still running), and the kernel drops it when the
    grader closes it or dies, so a crashed grader leaks no uid.
    """

    def __init__(self, uid: int, fd: int) -> None:
        """Hold ``uid`` through the locked ``fd``."""
        self.uid = uid
        self._fd = fd

    def release(self) -> None:
        """Let another child have this uid (call once the child has been reaped; idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _lease_folder() -> Path | None:
    """The folder of uid leases: made by root, for root only (None when it cannot be)."""
    for folder in (LEASE_FOLDER, Path(tempfile.gettempdir()) / "menace-course-uids-0"):
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = folder.lstat()
        except OSError:
            continue
        # Another user's folder (made first in a shared /tmp) or a link is never trusted.
        if not os.path.islink(folder) and info.st_uid == 0 and not info.st_mode & 0o077:
            return folder
    return None


def lease_uid() -> UidLease | None:
    """A uid no other child has now, from ``UID_BASE`` up (None: none could be leased).

    Two children that share a uid may signal each other, and read what ``/proc`` shows of
    each other; so (as root) every process-mode child gets one of its own, for as long as
    it runs. A uid or gid that names an account or group on this machine is skipped.
    """
    import fcntl

    folder = _lease_folder()
    if folder is None:
        return None
    for slot in range(UID_SLOTS):
        uid = UID_BASE + slot
        if not _no_account(uid):
            continue
        try:
            fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # another child has this one
            continue
        return UidLease(uid, fd)
    return None


@functools.cache
def _no_account(uid: int) -> bool:
    """True when no user and no group has this id (asked once: a directory service may be slow)."""
    import grp
    import pwd

    try:
        pwd.getpwuid(uid)
        return False
    except KeyError:
        pass
    try:
        grp.getgrgid(uid)
        return False
    except KeyError:
        return True


@functools.cache
def pid_namespace_prefix() -> tuple[str, ...]:
    """The command that gives a child its own pid namespace and ``/proc`` (empty: not here).

    util-linux's ``unshare --fork`` makes the child the first process of a new pid
    namespace, mounts a ``/proc`` of that namespace in a mount namespace of its own, kills
    the child if it dies itself (``--kill-child``), and ends as the child ended. The
    harness, finding itself that first process, stays it and runs below it
    (:func:`~menace_course.sandbox.harness.stay_first_process`), ending as it ended, as
    bubblewrap's init does. Tried once: a kernel or container that refuses new namespaces
    gives an empty prefix, and the child runs without (with a notice).
    """
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        return ()
    prefix = (unshare, "--pid", "--fork", "--kill-child", "--mount-proc", "--")
    try:
        done = subprocess.run(
            [*prefix, "/bin/true"],
            env={},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return prefix if done.returncode == 0 else ()


@dataclass(frozen=True)
class LaunchPlan:
    """How to start one child: the command, its environment and the fds it inherits."""

    argv: list[str]
    env: dict[str, str]
    kind: SandboxKind
    workdir: Path
    pass_fds: tuple[int, ...] = field(default=())
    #: fds made for the child only (e.g. the seccomp program's pipe): close once it started
    close_after_start: tuple[int, ...] = field(default=())
    #: what the launcher itself confines the child with (the harness adds its own part)
    confinement: tuple[str, ...] = field(default=())
    #: what the launcher could not confine the child with here (named in the report's notices)
    missing: tuple[str, ...] = field(default=())
    #: the uid held for this child: release it once the child has been reaped
    lease: UidLease | None = None


class BwrapProbe:
    """Whether bubblewrap can create the namespaces we need here: asked now, answered later.

    The probe is a bwrap that runs ``true``; it takes about 10 ms, mostly the kernel making
    namespaces. Started early (``menace check`` starts it first thing), it runs on another
    core while the grader reads the file and imports what it needs.

    Example:
        probe = BwrapProbe()          # bwrap starts
        ...                           # other work
        kind = choose_kind("auto", probe)
    """

    def __init__(self) -> None:
        """Start the probe (nothing runs when bwrap is not installed, or the answer is known)."""
        self._process: subprocess.Popen[bytes] | None = None
        self._answer: bool | None = None
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            self._answer = False
            return
        if _known is not None and _known[0] == bwrap:
            self._answer = _known[1]
            return
        argv = [bwrap, "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "true"]
        if os.geteuid() != 0:
            argv[1:1] = ["--unshare-user"]
        try:
            self._process = subprocess.Popen(
                argv, env={}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        except OSError:
            self._answer = False

    def works(self) -> bool:
        """True when the probe ran and succeeded (waits for it, at most 10 s)."""
        if self._answer is None:
            assert self._process is not None
            try:
                self._answer = self._process.wait(timeout=10) == 0
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
                self._answer = False
        return self._answer


#: The probe's answer for one bwrap, when this process already has it (:func:`remember_probe`).
_known: tuple[str, bool] | None = None


def remember_probe() -> None:
    """Probe now, and let every later :class:`BwrapProbe` of this process and its forks reuse the answer.

    The warm checker calls it before it forks a copy for a check (at most once a minute), so
    a warm check starts no bubblewrap of its own just to ask. The answer is kept for the
    bwrap that was asked: a check whose ``PATH`` finds another one (or none) probes as usual.
    """
    global _known
    bwrap = shutil.which("bwrap")
    _known = None
    if bwrap is not None:
        _known = (bwrap, BwrapProbe().works())


@functools.cache
def bwrap_works() -> bool:
    """Probe once whether bubblewrap can create the namespaces we need on this machine."""
    return BwrapProbe().works()


def choose_kind(requested: str, probe: BwrapProbe | None = None) -> SandboxKind:
    """Resolve ``auto``/``bwrap``/``process`` to the sandbox that will actually run.

    ``probe`` is a :class:`BwrapProbe` started earlier; without one, this process's
    answer (:func:`bwrap_works`, probed once) is used.

    Raises:
        SandboxUnavailable: the sandbox asked for cannot run here (exit 2, with how to fix it).
    """
    if requested == "process":
        refusal = process_refusal()
        if refusal:
            raise SandboxUnavailable(refusal)
        return "process"
    if probe.works() if probe is not None else bwrap_works():
        return "bwrap"
    if requested == "bwrap":
        raise SandboxUnavailable(
            "bubblewrap (bwrap) cannot run here: install it (apt-get install bubblewrap) "
            "or allow unprivileged user namespaces, or use --sandbox process"
        )
    refusal = process_refusal()
    if refusal:
        raise SandboxUnavailable(f"bubblewrap cannot run here, and {refusal}")
    return "process"


def child_python() -> Path:
    """The interpreter the child runs: the base Python, never a virtual environment's.

    The child runs with ``-I -S`` and every site-packages folder hidden, so a venv would
    add nothing but its path (and every folder above it) to what the child can see.
    """
    return Path(getattr(sys, "_base_executable", None) or sys.executable)


def _interpreter_roots() -> list[Path]:
    """Folders the child's interpreter needs: its prefix, outside /usr."""
    roots = {Path(sys.base_prefix).resolve(), child_python().resolve().parent.parent}
    return sorted(r for r in roots if not r.is_relative_to("/usr"))


def _site_dirs() -> list[Path]:
    """Every site-packages folder of this Python and of its base that exists, to be hidden."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidates = {
        *site.getsitepackages(),
        site.getusersitepackages(),
        sysconfig.get_path("purelib"),
        sysconfig.get_path("platlib"),
    }
    for base in {sys.base_prefix, sys.prefix}:
        scheme = {"base": base, "platbase": base, "installed_base": base, "installed_platbase": base}
        candidates |= {sysconfig.get_path(k, vars=scheme) for k in ("purelib", "platlib")}
        candidates |= {
            f"{base}/lib/{version}/site-packages",
            f"{base}/lib/{version}/dist-packages",
            f"{base}/lib/python3/dist-packages",
            f"{base}/local/lib/{version}/dist-packages",
        }
    return sorted(Path(c) for c in candidates if c and Path(c).is_dir())


def _world_readable_python() -> bool:
    """True when every folder above the interpreter and its library lets anyone in."""
    paths = [child_python().resolve(), *(_interpreter_roots() or [Path(sys.base_prefix)])]
    for path in paths:
        for folder in path.parents:
            if not folder.stat().st_mode & 0o001:
                return False
    return True


def process_refusal() -> str:
    """Why the process sandbox cannot run here without running student code as root ("" if it can).

    As root the harness always drops to nobody before any student code runs. Nobody must
    then still be able to import from the interpreter's library: either every folder
    above it lets anyone in, or ``/proc/self/fd`` lets the harness keep the folders it
    opened while it was root (Linux).
    """
    if os.geteuid() != 0 or _world_readable_python() or Path("/proc/self/fd").is_dir():
        return ""
    return (
        f"--sandbox process would run students' code as root: the unprivileged user cannot "
        f"read this Python ({child_python()}). Install Python where every user can read it "
        "(e.g. /usr or /opt), run menace as an ordinary user, or use --sandbox bwrap"
    )


def _parents_needing_dirs(path: Path) -> list[Path]:
    # bubblewrap copies the mode of a parent it creates (e.g. /root is 0700), which would
    # stop the unprivileged child; create each parent first with mode 0755.
    return [p for p in reversed(path.parents) if str(p) != "/"]


def python_command(script: str) -> list[str]:
    """The child's interpreter running ``script``: isolated, no site, no bytecode written."""
    return [str(child_python()), "-I", "-S", "-B", script]


def _child_settings(limits: Limits) -> dict[str, object]:
    """What every harness is told on its command line: its limits, and whom to become."""
    return {
        "limits": limits.rlimits(),
        "print_limit": limits.print_chars,
        # As root, student code never runs as root: the harness drops to nobody first.
        "drop_to_uid": NOBODY if os.geteuid() == 0 else None,
    }


def _seccomp_setting() -> str | None:
    """The seccomp program for a harness that installs it itself, as hex (None: none here)."""
    return seccomp.program().hex() if seccomp.supported() else None


def box_settings(limits: Limits) -> str:
    """The settings of a harness in a zygote's box (:mod:`~menace_course.sandbox.zygote`).

    As under bubblewrap, plus what bubblewrap would have done for it: the box's processes
    hold ``CAP_SYS_ADMIN`` (the zygote's) until the harness gives up every capability,
    and the harness installs the seccomp filter itself.
    """
    settings = _child_settings(limits)
    settings["drop_capabilities"] = True
    settings["seccomp"] = _seccomp_setting()
    return wire.pack(settings).decode().strip()


def plan_launch(kind: SandboxKind, workdir: Path, limits: Limits, fds: tuple[int, int]) -> LaunchPlan:
    """Build the command that runs the harness on ``workdir/submission.py``.

    ``workdir`` holds a private copy of the harness, the codec and the submission; the
    child's request and reply pipes are ``fds`` (kept open across ``exec``).
    """
    as_root = os.geteuid() == 0
    settings = _child_settings(limits)
    if kind == "process":
        refusal = process_refusal()
        if refusal:
            raise SandboxUnavailable(refusal)
        lease = lease_uid() if as_root else None
        applied: tuple[str, ...] = ()
        missing: tuple[str, ...] = ()
        if lease is not None:
            settings["drop_to_uid"] = lease.uid
            applied += ("a uid of its own",)
        elif as_root:
            missing += ("a uid of its own",)
        prefix = pid_namespace_prefix() if as_root else ()
        if prefix:
            applied += ("pid namespace",)
        elif as_root:
            missing += ("pid namespace",)
        # Without bubblewrap the harness confines itself: its own IPC namespace and
        # scratch folders (root only), the seccomp filter, and a way to keep reading a
        # Python nobody cannot open.
        settings["own_ipc"] = as_root
        settings["own_scratch"] = limits.tmp_bytes if as_root else None
        settings["keep_python"] = as_root and not _world_readable_python()
        settings["seccomp"] = _seccomp_setting()
        argv = [*prefix, *python_command(str(workdir / "harness.pyc"))]
        argv += [str(workdir / "submission.py")]
        argv += [str(fds[0]), str(fds[1]), wire.pack(settings).decode().strip()]
        env = {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(workdir),
            "PYTHONHASHSEED": "0",
        }
        plan = LaunchPlan(argv, env, "process", workdir, fds, confinement=applied, missing=missing)
        return replace(plan, lease=lease)
    command = [*python_command("/box/harness.pyc"), "/box/submission.py"]
    command += [str(fds[0]), str(fds[1]), wire.pack(settings).decode().strip()]
    return bwrap_plan(workdir, limits, command, fds)


#: What bubblewrap itself confines a sandbox with (the harness adds its own part).
BWRAP_CONFINEMENT = ("namespaces", "read-only filesystem", "no network", "ipc namespace")


def bwrap_base(tmp_bytes: int, *, zygote: bool = False) -> tuple[list[str], dict[str, str]]:
    """bubblewrap's command up to the sandbox's own folder, and bubblewrap's environment.

    The child sees ``/usr``, the interpreter's prefix (its site-packages hidden), a minimal
    read-only ``/dev`` and a small private ``/tmp``; nothing else of the host yet. A
    ``zygote`` keeps ``CAP_SYS_ADMIN``, to make each box's namespaces and mounts
    (:mod:`~menace_course.sandbox.zygote`); every box gives it up before student code runs.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    argv = [bwrap]
    if os.geteuid() == 0:
        # A root-launched user namespace maps back to host root (process limits are then
        # ignored); instead bwrap sets up the mounts as root and the harness drops to nobody.
        argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        argv += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    if zygote:
        argv += ["--cap-add", "CAP_SYS_ADMIN"]
    # Each sandbox has its own pid, network, IPC (SysV and POSIX queues), uts and cgroup view.
    argv += [
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--unshare-net",
    ]
    argv += ["--die-with-parent", "--new-session", "--clearenv"]
    argv += ["--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8"]
    argv += ["--setenv", "HOME", "/tmp", "--setenv", "PYTHONHASHSEED", "0"]
    argv += ["--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib"]
    argv += ["--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--dev", "/dev"]
    # /dev is a tmpfs as large as the host's memory, and (without root) the sandbox's user
    # owns it: files in /dev or /dev/shm would hold memory no limit counts. Devices still work.
    argv += ["--remount-ro", "/dev"]
    # /tmp first: a tmpfs mounted later would hide binds below it (e.g. a venv in /tmp).
    argv += ["--size", str(tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
    argv += _interpreter_mounts()
    # bwrap itself gets a minimal environment: its own /proc entry is invisible (no --proc),
    # but nothing of the grader's environment should be there to find in any case.
    return argv, {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


@functools.cache
def _interpreter_mounts() -> tuple[str, ...]:
    """bubblewrap's arguments that show the interpreter and hide every site-packages folder.

    Worked out once a process: it reads the interpreter's configuration and resolves a
    dozen paths (about 2 ms, once for every sandbox before), and none of it changes while
    the grader runs.
    """
    argv: list[str] = []
    for root in _interpreter_roots():
        for parent in _parents_needing_dirs(root):
            argv += ["--perms", "0755", "--dir", str(parent)]
        argv += ["--ro-bind", str(root), str(root)]
    visible = [Path("/usr"), *_interpreter_roots()]
    for hidden in _site_dirs():
        # Only what the child can see needs hiding (a tmpfs elsewhere would make its path).
        if any(hidden.resolve().is_relative_to(root) for root in visible):
            argv += ["--tmpfs", str(hidden.resolve())]
    return tuple(argv)


def bwrap_plan(
    workdir: Path,
    limits: Limits,
    command: list[str],
    fds: tuple[int, ...] = (),
    *,
    with_filter: bool = True,
) -> LaunchPlan:
    """Run ``command`` under bubblewrap with ``workdir`` as ``/box`` (read-only).

    The sandbox of :func:`bwrap_base`, with ``/box`` and nothing else added. It runs under
    the :mod:`~menace_course.sandbox.seccomp` filter (``with_filter=False`` is for tests
    that show what the filter stops).
    """
    argv, env = bwrap_base(limits.tmp_bytes)
    argv += ["--ro-bind", str(workdir), "/box", "--chdir", "/box", "--remount-ro", "/"]
    filter_fd = _seccomp_pipe() if with_filter else None
    if filter_fd is not None:
        argv += ["--seccomp", str(filter_fd)]
    extra = () if filter_fd is None else (filter_fd,)
    confinement = BWRAP_CONFINEMENT + (("seccomp",) if filter_fd is not None else ())
    return LaunchPlan([*argv, *command], env, "bwrap", workdir, (*fds, *extra), extra, confinement)


def _seccomp_pipe() -> int | None:
    """A pipe holding the seccomp program, for ``bwrap --seccomp FD`` (None: no filter here)."""
    if not seccomp.supported():
        return None
    code = seccomp.program()
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, code)  # a few hundred bytes: far below a pipe's capacity
    finally:
        os.close(write_end)
    return read_end
