"""The one pool of grader processes: one process type, one watchdog, one retry, a typed loss.

Everything that grades in a process of its own runs here: ``menace grade``, ``menace
validate`` (the reference, the wrong solutions, the mutants), the Gradescope and nbgrader
autograders, the service's local graders and ``menace worker``'s::

    Graders(size, ready=...)                      up to ``size`` grader processes
      .call(function, task, seconds=...)          one task on a free grader: its result, or GraderLost
      .run(function, tasks, on_lost=...)          many in parallel, each result when it is ready
          │ pickled over a private socket (the pipe: where a result is serialised)
          ▼
    GraderProcess: ``ready()`` once, then ``warm(task)``, then ``function(task)``, task after task

A grader process is trusted grader code (it imports the hidden tests and the reference);
student code runs only in the sandboxed child that
:func:`~menace_course.checking.pipeline.check_submission` starts from it, and dies with it.
The one policy, whatever the caller, says why a task got no result with a :class:`Lost`:

* ``TIMEOUT``: still running after its ``seconds`` (or not started within
  :data:`START_SECONDS`): its grader is killed, and the task is not tried again (it would
  only run out again).
* ``DIED``: the grader process ended under the task (killed by the system, or by something
  a submission did): it is replaced and the task tried once more on a fresh one; ``DIED``
  when that dies too.
* ``REFUSED``: the grader's ``ready`` raised (a course that does not load): not tried again.
* ``RAISED``: the task's function raised, a bug of ours; the traceback is the detail, and the
  grader goes on with the next task.

A grader process is a plain ``python -P -c`` (not ``multiprocessing``, which would import
the parent's ``__main__`` again: a ``__main__`` of ``python -m NAME`` is read as the module
NAME) with the parent's ``sys.path`` less the working folder (a
folder of submissions, say: a ``json.py`` there must not shadow the standard library's
in trusted code), in a session of its own; it ignores Ctrl-C (the parent handles it) and
ends when its parent is gone, even after ``kill -9``.
"""

from __future__ import annotations

import contextlib
import enum
import io
import json
import logging
import os
import pickle
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")
log = logging.getLogger("menace.pool")

#: How long a grader may take to start (import the grader, ``ready``, the task's ``warm``).
START_SECONDS = 120.0
#: The line a grader process runs: the parent's ``sys.path``, then :func:`serve`.
_LAUNCH = "import json, sys; sys.path[:] = json.loads(sys.argv[1]); import menace_course.pool as p; p.serve()"


class Lost(enum.Enum):
    """Why a grader gave no result for a task (see the module's docstring for what follows)."""

    TIMEOUT = "timeout"
    DIED = "died"
    REFUSED = "refused"
    RAISED = "raised"


class GraderLost(Exception):
    """A task got no result: ``reason``, the ``seconds`` it had (TIMEOUT) and a ``detail``.

    ``detail`` is the task's traceback (RAISED), what ``ready`` raised (REFUSED), else a
    sentence: it is for the instructor or the log, never for a student.
    """

    def __init__(self, reason: Lost, detail: str = "", seconds: float = 0.0) -> None:
        """Say why."""
        words = {
            Lost.TIMEOUT: f"still running after {seconds:g} s, so its grader was stopped",
            Lost.DIED: "the grader process checking it died (it was tried twice)",
            Lost.REFUSED: f"the grader process could not start: {detail}",
            Lost.RAISED: "the grader failed (a bug of ours)",
        }
        super().__init__(words[reason])
        self.reason = reason
        self.detail = detail or words[reason]
        self.seconds = seconds


#: Run by a grader process after it has sent each task's result, before it waits for the next
#: (registered in the grader process through :func:`between_tasks`).
_between_tasks: list[Callable[[], object]] = []
_serving = False


def between_tasks(hook: Callable[[], object]) -> bool:
    """In a grader process, run ``hook()`` after each task's result is sent; False elsewhere.

    For work that readies the next task off any task's clock (the next submission's sandbox,
    :mod:`menace_course.sandbox.spare`). A hook that raises is our bug: it is logged, and the
    grader goes on. Registering the same hook again does nothing.
    """
    if not _serving:
        return False
    if hook not in _between_tasks:
        _between_tasks.append(hook)
    return True


def _run_between_tasks() -> None:
    for hook in _between_tasks:
        try:
            hook()
        except Exception:  # our bug: never the next task's
            log.exception("a between-tasks hook failed")


def serve() -> None:
    """A grader process (``python -c _LAUNCH PATH FD PARENT MAIN``): ready, then each task it is sent."""
    global _serving
    fd, parent, main = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    _serving = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.25)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="watch-parent").start()
    connection = Connection(fd)
    try:
        ready = _Unpickler(connection.recv_bytes(), main).load()
        if ready is not None:
            ready()
    except Exception as error:  # a broken course: no task can run here
        connection.send(("refused", str(error) or type(error).__name__))
        return
    connection.send(("ready", None))
    while True:
        try:
            message = _Unpickler(connection.recv_bytes(), main).load()
            if message is None:
                return
            function, warm, task = message
            if warm is not None:
                warm(task)  # before the watchdog's clock starts (e.g. collecting a suite)
            connection.send(("begin", None))
            reply = ("ok", function(task))
        except (EOFError, OSError):  # the parent is gone
            return
        except Exception:  # our bug (in the task, or a task that does not unpickle here)
            reply = ("raised", traceback.format_exc())
        try:
            connection.send(reply)
        except Exception:  # a result that does not pickle is our bug too
            connection.send(("raised", traceback.format_exc()))
        _run_between_tasks()


class _Unpickler(pickle.Unpickler):
    """Reads what the parent sent; its ``__main__`` (``python -m NAME``) is the module NAME here."""

    def __init__(self, data: bytes, main: str) -> None:
        super().__init__(io.BytesIO(data))
        self.main = main

    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(self.main if module == "__main__" and self.main else module, name)


def _grader_path() -> list[str]:
    """The parent's ``sys.path`` without its working folder (a student's, perhaps): only our package's."""
    here, ours = os.getcwd(), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return [p for p in sys.path if os.path.abspath(p) != here or here == ours]


class GraderProcess:
    """One grader process and the socket to it; :meth:`run` gives a result or raises :class:`GraderLost`."""

    def __init__(self, ready: Callable[[], object] | None = None) -> None:
        """Start the process; it runs ``ready()`` (picklable: a module's function) before any task."""
        ours, theirs = socket.socketpair()
        main = getattr(getattr(sys.modules["__main__"], "__spec__", None), "name", "")
        argv = [
            sys.executable,
            "-I" if sys.flags.isolated else "-P",
            "-c",
            _LAUNCH,
            json.dumps(_grader_path()),
        ]
        argv += [str(theirs.fileno()), str(os.getpid()), main or ""]
        try:
            self.process = subprocess.Popen(
                argv, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, start_new_session=True
            )
        finally:
            theirs.close()
        self._connection = Connection(ours.detach())
        self._connection.send(ready)
        self.ready = False

    def await_ready(self) -> None:
        """Wait until ``ready()`` has run, or raise :class:`GraderLost` (REFUSED, TIMEOUT, DIED)."""
        if not self.ready:
            kind, detail = self._receive(START_SECONDS)
            if kind == "refused":
                self.kill()
                raise GraderLost(Lost.REFUSED, str(detail))
            self.ready = True

    def run(
        self, function: Callable[[T], R], task: T, seconds: float | None, warm: Callable[[T], object] | None
    ) -> R:
        """``function(task)`` in the process; ``seconds`` of wall clock once ``warm(task)`` has run."""
        self.await_ready()
        try:
            self._connection.send((function, warm, task))
        except (OSError, ValueError) as error:
            self.kill()
            raise GraderLost(Lost.DIED, f"the grader process is gone ({error})") from error
        kind, value = self._receive(START_SECONDS)
        if kind == "begin":
            kind, value = self._receive(seconds)
        if kind == "raised":
            raise GraderLost(Lost.RAISED, str(value))
        result: R = value
        return result

    def _receive(self, seconds: float | None) -> tuple[str, Any]:
        try:
            if not self._connection.poll(seconds):
                self.kill()
                raise GraderLost(Lost.TIMEOUT, seconds=seconds or 0.0)
            message: tuple[str, Any] = self._connection.recv()
        except (EOFError, OSError) as error:
            self.kill()
            raise GraderLost(
                Lost.DIED, f"the grader process died (exit code {self.process.poll()})"
            ) from error
        return message

    def alive(self) -> bool:
        """True while the process runs."""
        return self.process.poll() is None

    def kill(self) -> None:
        """End the process now (its sandboxed child dies with it)."""
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        self._connection.close()

    def stop(self) -> None:
        """Ask the process to end, and make sure it does."""
        with contextlib.suppress(OSError, ValueError):
            self._connection.send(None)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=2)
        self.kill()


@dataclass
class _Slot:
    grader: GraderProcess | None = None


class Graders:
    """Up to ``size`` grader processes, each started when first needed; a context manager.

    Safe across threads: :meth:`call` waits for a free grader. Example::

        with Graders(2) as graders:
            for record in graders.run(grade_task, tasks, on_lost=lost_record, seconds=lambda task: 90):
                store.save(record)
    """

    def __init__(self, size: int, ready: Callable[[], object] | None = None) -> None:
        """``ready()`` runs once in each grader process before its first task (e.g. import the tests)."""
        self.size = max(1, size)
        self._ready = ready
        self._slots = [_Slot() for _ in range(self.size)]
        self._free: queue.Queue[_Slot] = queue.Queue()
        for slot in self._slots:
            self._free.put(slot)

    def __enter__(self) -> Graders:
        """Start using the graders."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stop every grader process."""
        self.stop()

    def start(self) -> None:
        """Start every grader process now (their ``ready`` runs while nobody waits)."""
        for slot in self._slots:
            if slot.grader is None:
                slot.grader = GraderProcess(self._ready)

    def await_ready(self) -> None:
        """Start the graders and wait until each is ready; else :class:`GraderLost` (a broken course)."""
        self.start()
        for slot in self._slots:
            if slot.grader is not None:
                slot.grader.await_ready()

    def alive(self) -> int:
        """Grader processes running."""
        return sum(1 for slot in self._slots if slot.grader is not None and slot.grader.alive())

    def stop(self) -> None:
        """End every grader process, busy or not (a busy task gets DIED)."""
        for slot in self._slots:
            if slot.grader is not None:
                slot.grader.stop()

    @contextlib.contextmanager
    def _borrow(self) -> Iterator[_Slot]:
        slot = self._free.get()
        try:
            yield slot
        finally:
            self._free.put(slot)

    def call(
        self,
        function: Callable[[T], R],
        task: T,
        *,
        seconds: float | None = None,
        warm: Callable[[T], object] | None = None,
        cancelled: threading.Event | None = None,
    ) -> R:
        """``function(task)`` on a free grader under the one policy; its result, or :class:`GraderLost`.

        ``function``, ``warm`` and ``task`` must be picklable (module-level functions, frozen
        dataclasses). ``warm(task)`` runs first, outside the ``seconds`` (it has
        :data:`START_SECONDS`): to collect a suite, say.
        """
        with self._borrow() as slot:
            for again in (False, True):
                if slot.grader is None or not slot.grader.alive():
                    slot.grader = GraderProcess(self._ready)
                try:
                    return slot.grader.run(function, task, seconds, warm)
                except GraderLost as lost:
                    if lost.reason is not Lost.DIED or again or (cancelled and cancelled.is_set()):
                        raise
                    log.warning("%s; the task is tried once more on a fresh one", lost.detail)
            raise AssertionError("unreachable")

    def run(
        self,
        function: Callable[[T], R],
        tasks: Iterable[T],
        *,
        on_lost: Callable[[T, GraderLost], R],
        seconds: Callable[[T], float | None] = lambda task: None,
        warm: Callable[[T], object] | None = None,
    ) -> Iterator[R]:
        """:meth:`call` for every task, ``size`` at a time; yield each result (or ``on_lost``'s) when ready.

        Results come in the order they are ready. ``on_lost`` runs in the caller's thread;
        stopping early (Ctrl-C, or the caller stops reading) kills the graders still busy.
        """
        todo = deque(tasks)
        count = len(todo)
        done: queue.Queue[tuple[T, str, Any]] = queue.Queue()
        cancelled = threading.Event()
        lock = threading.Lock()

        def work() -> None:
            while not cancelled.is_set():
                with lock:
                    if not todo:
                        return
                    task = todo.popleft()
                try:
                    done.put(
                        (
                            task,
                            "ok",
                            self.call(function, task, seconds=seconds(task), warm=warm, cancelled=cancelled),
                        )
                    )
                except GraderLost as lost:
                    done.put((task, "lost", lost))
                except BaseException as error:  # e.g. a task that does not pickle: the caller's to see
                    done.put((task, "error", error))
                    return

        threads = [threading.Thread(target=work, daemon=True) for _ in range(min(self.size, count))]
        for thread in threads:
            thread.start()
        finished = False
        try:
            for _ in range(count):
                task, kind, value = done.get()
                if kind == "error":
                    raise value
                yield on_lost(task, value) if kind == "lost" else value
            finished = True
        finally:
            cancelled.set()
            with lock:
                todo.clear()
            if not finished:
                self.stop()  # interrupted: the busy graders go (a later task starts new ones)
            for thread in threads:
                thread.join(timeout=10)  # one that started a grader just now: __exit__ stops it
