"""How long a sandboxed child has really had, whatever else the machine is doing.

A call's time limit is there to stop code that never ends, not to punish code that the
machine was too busy to run. Wall-clock time mixes the two: on a loaded machine a
memory bomb that would fail in 0.3 s can sit in the run queue for seconds and be called
a timeout. Linux counts, for every task, the time it spent runnable but waiting for a CPU
(``/proc/PID/schedstat``, second field: ``run_delay``, in nanoseconds). The time a child
*had* is the wall clock minus that wait. It includes its CPU time and its own sleeps
(``time.sleep`` in a loop is still a timeout), but not the time other processes took.

Where the file does not exist (macOS, Windows, a kernel without schedstats) the child's
time is plain wall clock. Either way the grader also keeps a hard wall-clock ceiling
(:class:`~menace_course.sandbox.child.Child` ``deadline``), so a starved child cannot
stretch a check for ever.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The names (``/proc/PID/comm``) of the programs that start the harness: bubblewrap, and
#: in process mode as root, ``unshare``. A process they fork has their name until it starts
#: the next program.
WRAPPERS = frozenset({"bwrap", "unshare"})


def leaf_pid(pid: int) -> int:
    """The innermost descendant of ``pid`` (the harness, under the processes that wrap it).

    The sandboxed child cannot start processes, so its tree is a chain: bwrap, bwrap's
    init inside the pid namespace, then Python (in process mode as root: unshare, the
    harness's own first process of the namespace, then the harness).
    """
    for _ in range(8):
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            return pid
        if not children:
            return pid
        pid = int(children[0])
    return pid


def is_wrapper(pid: int) -> bool:
    """True while ``pid`` is not yet the harness: a :data:`WRAPPERS` program, or a namespace's first process.

    The first process of a pid namespace is never the harness: bubblewrap's init is, and in
    process mode as root the harness stays it and runs below it
    (:func:`~menace_course.sandbox.harness.stay_first_process`); before it has forked, the
    one process there is both.
    """
    try:
        if Path(f"/proc/{pid}/comm").read_text().strip() in WRAPPERS:
            return True
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("NSpid:"):
                return line.split()[-1] == "1"
    except OSError:
        pass
    return False


class RunDelay:
    """Reads one process's accumulated run-queue wait, cheaply (one ``pread`` a reading)."""

    def __init__(self, pid: int) -> None:
        """Open ``/proc/PID/schedstat`` if this system has it."""
        self.pid = pid  #: the process whose wait it reads (host pid)
        self.fd = -1
        try:
            self.fd = os.open(f"/proc/{pid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            pass

    def seconds(self) -> float:
        """Seconds the process has spent waiting for a CPU so far (0.0 where unknown)."""
        if self.fd < 0:
            return 0.0
        try:
            fields = os.pread(self.fd, 128, 0).split()
            return int(fields[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self.fd >= 0:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = -1
