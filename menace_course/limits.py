"""The limits on one submission: how long, how much memory, how much output.

A leaf of the package (it imports nothing of ours): the catalog reads a challenge's
``[limits]`` table into a :class:`Limits`, and the sandbox applies one, without either
importing the other. Every field is a setting with a default that suits the lesson.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Every limit on a submission; each is a setting with a default that suits the lesson."""

    call_seconds: float = 2.0  #: the child's time for one call (see sandbox.clock)
    import_seconds: float = 5.0  #: the child's time for loading the file
    budget_seconds: float = 20.0  #: the child's time for everything on one submission (loads, calls)
    #: hard wall-clock end of one submission, however busy the machine (see wall_limit)
    wall_seconds: float = 30.0
    memory_bytes: int = 512 * 1024 * 1024  #: address space of the child
    cpu_seconds: int = 60  #: CPU time of the child's whole life (a backstop)
    file_size_bytes: int = 1024 * 1024  #: largest file the child may write (in its tmpfs)
    open_files: int = 64
    processes: int = 0  #: new processes or threads the child may start
    print_chars: int = 4096  #: printed output kept per call
    reply_bytes: int = 1024 * 1024  #: largest reply accepted from the child
    tmp_bytes: int = 16 * 1024 * 1024  #: size of the child's /tmp under bubblewrap

    @property
    def wall_limit(self) -> float:
        """Seconds of wall clock after which nothing waits on a submission's child any more.

        ``wall_seconds``, but never less than the budget, the loading time and 5 s: a
        challenge that raises its budget raises its wall limit with it.
        """
        return max(self.wall_seconds, self.budget_seconds + self.import_seconds + 5.0)

    def rlimits(self) -> dict[str, object]:
        """The resource limits the harness sets on itself before loading student code."""
        return {
            "memory": self.memory_bytes,
            "cpu": [self.cpu_seconds, self.cpu_seconds + 1],
            "file_size": self.file_size_bytes,
            "open_files": self.open_files,
            "processes": self.processes,
            "core": 0,
        }
