"""The grader's side of a sandboxed child: start it, call functions with deadlines, end it.

One :class:`Child` serves one submission. Every wait on the child (its first load, a
call, a restart and the reload after it, even writing a request into a pipe the child
will not drain) has a deadline, and every second of it is charged to the submission's
budget. A timeout, a crash or a garbled reply kills the child (and, through its pid
namespace or process group, everything it started) and the next call starts a fresh one.
A function that timed out is not called again, nor one that crashed three times, nor any
function once a restarted child failed to load: a file that misbehaves costs a few
limits, never one per test.

A test's calls known before it runs can be sent in one batch (:meth:`Child.send_ahead`,
:mod:`~menace_course.sandbox.batch`): each of the test's calls then only reads its reply,
with its own deadline, exactly as if it had been sent alone. When the test does not make
the calls that were sent (it stopped early), the child is started afresh and the calls
really made are made again in it, uncharged (:meth:`Child._resync`).

Time limits count the time the child *had* (:mod:`~menace_course.sandbox.clock`): wall
clock minus the time it waited for a CPU, so a verdict does not depend on how busy the
machine is. Above that, :attr:`Child.deadline` is a hard wall-clock end for the whole
submission that no wait ever passes: the primitive a batch watchdog builds on.

Nothing from the child is trusted: replies are size-capped, read strictly by
:mod:`~menace_course.sandbox.outcomes`, matched by id and by a fresh random nonce per
message (student code can write to the reply pipe, but cannot know the nonce), and decoded
by :mod:`~menace_course.sandbox.wire`. The parent never imports or calls anything of the
submission's.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import marshal
import os
import py_compile
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from menace_course.cache import kept
from menace_course.limits import Limits
from menace_course.models import CallStatus, SandboxKind
from menace_course.sandbox import wire, zygote
from menace_course.sandbox.batch import Accounts, KnownReply, PlannedCall, ReadAhead, SentCall, pack_batch
from menace_course.sandbox.channel import Channel, ChannelClosed, ReplyTooLarge
from menace_course.sandbox.clock import RunDelay, is_wrapper, leaf_pid
from menace_course.sandbox.launch import BWRAP_CONFINEMENT, HARNESS_DIR, UidLease, plan_launch
from menace_course.sandbox.outcomes import (
    CallOutcome,
    Confinement,
    ForgedMessage,
    LoadOutcome,
    MachineStarved,
    ProtocolError,
    SandboxFailure,
    Tampering,
    over_the_cap,
    read_ready,
    read_reply,
)

#: A wait ends, however starved the child was, after this many times its own limit.
STARVATION_FACTOR = 4.0
#: Wall-clock seconds one submission's children may spend, in all, making calls again
#: after the tests left a batch (:meth:`Child._resync`). Not charged to the budget; the
#: hard deadline moves by as much, so the check's watchdog (``pipeline.time_allowed``,
#: 30 s for the grader's own work) covers it. Past it, no more batches for that submission.
REPLAY_SECONDS = 5.0
#: What a broken exchange with the child is, as far as the submission is concerned.
_BROKEN = (ChannelClosed, ProtocolError, ReplyTooLarge, wire.WireError)


@functools.cache
def compiled_harness() -> Path:
    """The harness and codec, compiled once per grader (not once per process).

    The child runs them from these ``.pyc`` files (sourceless, never checked against a
    source), so no sandbox compiles them again. Compiling them took 15 ms of every
    ``menace check``, so the compiled bytes are kept in the grader's cache, sealed with its
    key (:func:`menace_course.cache.seal`): a child running as the grader's own user could
    write to that folder, and a harness it had replaced would run every later submission
    unguarded. A file whose seal does not match is compiled again, never run.
    """
    folder = Path(tempfile.mkdtemp(prefix="menace-harness-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for name in ("harness", "wire"):
        (folder / f"{name}.pyc").write_bytes(_compiled(HARNESS_DIR / f"{name}.py"))
    return folder


def install_harness(folder: Path) -> Path:
    """Copy the compiled harness and codec into ``folder``, readable by the sandbox's user."""
    for name in ("harness.pyc", "wire.pyc"):
        shutil.copyfile(compiled_harness() / name, folder / name)
        (folder / name).chmod(0o644)
    folder.chmod(0o755)
    return folder


def _compiled(source: Path) -> bytes:
    """The ``.pyc`` bytes of ``source``: from the sealed cache, or compiled (and kept) now."""
    data = source.read_bytes()
    key = hashlib.sha256(data + b"\0" + sys.version.encode() + b"\0" + str(source).encode()).hexdigest()
    return kept("harness", f"{source.stem}-{key[:24]}.pyc.sealed", lambda: _pyc_of(source))


def _pyc_of(source: Path) -> bytes:
    with tempfile.TemporaryDirectory(prefix="menace-compile-") as scratch:
        target = Path(scratch) / "out.pyc"
        py_compile.compile(
            str(source),
            cfile=str(target),
            doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
        return target.read_bytes()


def _timed(outcome: CallOutcome, seconds: float) -> CallOutcome:
    """``outcome`` with its ``seconds`` set: only for an outcome this call has just made.

    Set in place rather than copied (a copy of a frozen dataclass costs about 3 µs, on
    every call): :meth:`Child._call` and :meth:`Child._restart` make a new outcome each
    time, which nothing has seen yet.
    """
    object.__setattr__(outcome, "seconds", seconds)
    return outcome


class Child:
    """A sandboxed child that has loaded one submission and answers calls on it.

    Example:
        with Child(source, "bwrap", Limits()) as worker:
            load = worker.load()
            outcome = worker.call("after_game", [[4] * 9, 0, "win"])
    """

    #: A function that stops Python (or runs out of memory) this many times is not called again.
    CRASHES_BEFORE_GIVING_UP = 3

    def __init__(
        self,
        source: str,
        kind: SandboxKind,
        limits: Limits,
        deadline: float | None = None,
        cells: tuple[tuple[int, int], ...] | None = None,
    ) -> None:
        """Prepare (but do not start) a child for the submission's source text.

        ``deadline`` is an absolute :func:`time.monotonic` time after which nothing waits
        on the child any more; by default it is ``limits.wall_limit`` after the first start.
        ``cells`` (a notebook's: the first and last line of each code cell in ``source``)
        makes the child run the cells one by one, as Jupyter does, in this one load.
        """
        self.source = source
        self.cells = cells
        self.kind = kind
        self.limits = limits
        self.deadline = deadline
        self.spent = 0.0  #: seconds charged to the budget so far: loads, restarts, calls
        self.dead_functions: set[str] = set()
        self.attempts: list[Tampering] = []  #: what student code tried that the harness noticed
        self.forged = 0  #: messages that did not carry the nonce (written by student code)
        #: what the harness says it applied to itself (uid, limits), once it has loaded
        self.confinement: Confinement | None = None
        self._launched_with: tuple[str, ...] = ()
        self._launch_missing: tuple[str, ...] = ()
        self._lease: UidLease | None = None  #: the child's own uid (process sandbox, as root)
        self.starts = 0
        self._crashes: dict[str, int] = {}
        self._broken = False  #: a restarted child did not load: no more calls
        #: the sandbox: bubblewrap (or a plain process) started for it, or a zygote's box
        self._process: subprocess.Popen[bytes] | zygote.Box | None = None
        self._channel: Channel | None = None
        self._delay: RunDelay | None = None
        self._workdir: Path | None = None
        self._next_id = 0
        #: (id, function, how many arguments) of the last call, when it returned: what
        #: :meth:`call_again` may ask the child to call again
        self._last_returned: tuple[int, str, int] | None = None
        #: the "again" call sent with the last call (``call(..., then_again=True)``), when
        #: that call returned: its id, nonce, when (and how starved) its wait began, and
        #: the reply a correct answer gives it, when the batch knew it
        self._ahead: tuple[int, str, float, float, KnownReply | None] | None = None
        #: repeats sent ahead that no :meth:`call_again` took: the test stopped after the
        #: call, or the grader mispredicted (each made the child start again: :meth:`_resync`)
        self.unused_repeats = 0
        #: calls sent ahead by :meth:`send_ahead` whose replies no call has read yet, in order
        self._pending: deque[SentCall] = deque()
        #: when the last reply of a batch was read, and how starved the child was then: the
        #: next batched call's wait starts there (the child began it then at the latest)
        self._last_reply: tuple[float, float] = (0.0, 0.0)
        #: every call this child answered since it last started fresh, as (function, argument
        #: key), or (None, b"") for a repeat of the call before: what :meth:`_resync` makes again
        self._history: list[tuple[str | None, bytes]] = []
        #: replies :meth:`read_known` read ahead that the test's own calls have not taken yet
        self._read: deque[ReadAhead] = deque()
        #: the accounts when :meth:`read_known` began (what :meth:`_leave_read_ahead` restores)
        self._read_from = Accounts(0, 0, 0, frozenset(), ())
        self.batched = 0  #: calls answered from a batch, without a round trip of their own
        #: replies that were, byte for byte, the reply the plan knew (:class:`KnownReply`): not parsed
        self.known_replies = 0
        self.resyncs = 0  #: times the child started afresh because the tests left the batch
        self.replayed = 0.0  #: wall-clock seconds spent making calls again (:meth:`_resync`)
        self.requests = 0  #: call requests written to the child (round trips; a repeat sent ahead is none)
        self._load_nonce = ""
        self._pending_hello = b""
        self._load: LoadOutcome | None = None
        self._errors: Any = None
        #: started by :meth:`ahead` and not yet given its submission by :meth:`assign`
        self._awaiting_source = False
        self.started_ahead = False  #: this child was started before its submission came

    @classmethod
    def ahead(cls, kind: SandboxKind, limits: Limits) -> Child:
        """A child started before its submission is known: it waits, confined, for :meth:`assign`.

        The sandbox and Python start, and the harness waits for its first message before it
        reads any file, so nothing of a submission is there yet and no student code has run.
        :mod:`~menace_course.sandbox.spare` keeps one such child per grader process.
        """
        child = cls("", kind, limits)
        child._awaiting_source = child.started_ahead = True
        try:
            child._start()
        except BaseException:
            child.close()
            raise
        return child

    def waiting(self) -> bool:
        """True for a child from :meth:`ahead` that is still running and has no submission yet."""
        return self._awaiting_source and self._process is not None and self._process.poll() is None

    def assign(self, source: str, cells: tuple[tuple[int, int], ...] | None = None) -> Child:
        """Give a child from :meth:`ahead` its one submission; its clock and budget start now.

        Once only: a child serves one submission, so a second ``assign`` (or one to a child
        made for a submission) is refused.

        Raises:
            RuntimeError: this child already has a submission (a grader bug).
        """
        if not self._awaiting_source:
            raise RuntimeError("a sandboxed child serves one submission: this one has its own")
        self._awaiting_source = False
        self.source, self.cells = source, cells
        if self._workdir is not None:
            self._write_submission(self._workdir)
        self.deadline = time.monotonic() + self.limits.wall_limit
        self._pending_hello = self._hello()
        return self

    def __enter__(self) -> Child:
        """Use as a context manager so the child is always killed."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Kill the child and remove its scratch folder."""
        self.close()

    # -- time ---------------------------------------------------------------------------

    def remaining(self) -> float:
        """Seconds of budget left (never below zero), also bounded by the hard deadline."""
        left = self.limits.budget_seconds - self.spent
        if self.deadline is not None:
            left = min(left, self.deadline - time.monotonic())
        return max(0.0, left)

    def _wait_line(
        self, seconds: float, send: bytes = b"", since: tuple[float, float] | None = None
    ) -> bytes:
        """Send ``send``, then read one line, within ``seconds`` of the child's own time.

        The wait is extended by the time the child spent waiting for a CPU, up to
        :data:`STARVATION_FACTOR` times ``seconds`` and never past :attr:`deadline`.
        ``since`` (a monotonic time and the child's starved seconds then) starts the wait
        earlier: for a reply the child began working on before this wait (a repeat sent ahead).

        Raises:
            TimeoutError: the child had its ``seconds`` (or the hard deadline came).
            MachineStarved: the ceiling came first: the child never had its ``seconds``.
            ChannelClosed, ReplyTooLarge
        """
        assert self._channel is not None
        delay = self._run_delay()
        if since is None:
            started = time.monotonic()
            starved_before = delay.seconds() if delay else 0.0
        else:
            started, starved_before = since
        ceiling = started + seconds * STARVATION_FACTOR
        if self.deadline is not None:
            ceiling = min(ceiling, self.deadline)
        starved = 0.0  # read again only when a wait runs out: one /proc read per call, not two
        while True:
            if delay is None and self._process is not None:
                delay = self._run_delay()  # the harness may only now be running
                starved = delay.seconds() if delay else 0.0  # all of its life is this wait
            until = min(started + seconds + starved, ceiling)
            try:
                if send:  # (requests sent ahead are written by receive, as the child reads them)
                    self._channel.send(send, until)
                    send = b""
                return self._channel.receive(until)
            except TimeoutError:
                now = time.monotonic()
                starved = (delay.seconds() - starved_before) if delay else starved
                if now >= started + seconds + starved:
                    raise  # the child had all its time: the student's timeout
                if now >= ceiling:
                    if self.deadline is not None and ceiling >= self.deadline:
                        raise  # the whole submission's wall-clock end
                    raise MachineStarved(
                        f"the machine gave the sandbox {now - started - starved:.2f} s of the"
                        f" {seconds:.2f} s it was due in {now - started:.2f} s: too busy to check"
                    ) from None

    def _run_delay(self) -> RunDelay | None:
        if self._delay is None and isinstance(self._process, zygote.Box):
            if self._box_started() and self._process.pid:
                self._delay = RunDelay(self._process.pid)  # the harness itself: nothing wraps it
            return self._delay
        if self._delay is None and self._process is not None and self._process.poll() is None:
            pid = leaf_pid(self._process.pid)
            # Under bwrap, or unshare's pid namespace, the harness is a process further down.
            wrapped = self.kind == "bwrap" or "pid namespace" in self._launched_with
            if not wrapped or (pid != self._process.pid and not is_wrapper(pid)):
                self._delay = RunDelay(pid)
        return self._delay

    # -- life cycle ---------------------------------------------------------------------

    def _box_started(self) -> bool:
        """Wait for the zygote to have made this child's box (False: it could not, see its complaint).

        Raises:
            SandboxFailure: the zygote made no box at all (it is stopped; the next start is from scratch).
        """
        assert isinstance(self._process, zygote.Box)
        try:
            return self._process.started()
        except zygote.BoxGone:  # a SandboxFailure: the grader's, never the student's
            zygote.forget_broken()
            raise

    def spawn(self) -> Child:
        """Start the child now, without waiting for it: it loads while the grader gets ready."""
        if self._process is None and self._load is None:
            self._start()
        return self

    def load(self) -> LoadOutcome:
        """Import the submission in the child (starting it if need be) and say how that went.

        The first answer is kept: a child restarted after a timeout is not asked again.
        """
        if self._awaiting_source:
            raise RuntimeError("a child started ahead loads only once it is given its submission (assign)")
        if self._load is None:
            if self._process is None:
                self._start()
            self._load = self._await_ready(self.limits.import_seconds)
        elif self._process is None:
            self._start()
            self._await_ready(self.limits.import_seconds)
        return self._load

    def _start(self) -> None:
        self.starts += 1
        if self.deadline is None:
            self.deadline = time.monotonic() + self.limits.wall_limit
        maker = zygote.shared() if self.kind == "bwrap" else None
        self._prepare_workdir(maker)
        assert self._workdir is not None
        self._close_errors()
        # The sandbox's own complaints (bwrap, the box's setup, or Python failing to start)
        # land here; the harness points fd 2 at /dev/null before any student code runs.
        self._errors = tempfile.TemporaryFile()
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        self._channel = Channel(request_write, reply_read, self.limits.reply_bytes)
        try:
            if maker is not None:
                self._process = maker.spawn(
                    self._workdir, self.limits, (request_read, reply_write), self._errors.fileno()
                )
                self._launched_with, self._launch_missing = BWRAP_CONFINEMENT, ()
            else:
                self._popen(request_read, reply_write)
        except zygote.BoxGone:
            zygote.forget_broken()
            self._prepare_workdir(None)
            self._popen(request_read, reply_write)
        finally:
            os.close(request_read)
            os.close(reply_write)
        # The first message says which nonce the ready message must carry. The harness
        # reads it before any student code runs; the pipe is empty, so this cannot block.
        self._load_nonce = secrets.token_hex(16)
        self._pending_hello = self._hello()

    def _prepare_workdir(self, maker: zygote.Zygote | None) -> None:
        """The submission's folder: in the zygote's, for a box; else with its own harness copy."""
        if maker is not None:
            if self._workdir is not None and self._workdir.parent == maker.root:
                return
            self._remove_workdir()
            self._workdir = maker.new_box_folder()
        elif self._workdir is not None and (self._workdir / "harness.pyc").exists():
            return
        else:
            self._remove_workdir()
            self._workdir = install_harness(Path(tempfile.mkdtemp(prefix="menace-")))
        if not self._awaiting_source:
            self._write_submission(self._workdir)

    def _popen(self, request_read: int, reply_write: int) -> None:
        """Start the sandbox from scratch: bubblewrap (or a plain process), then Python."""
        assert self._workdir is not None and self._errors is not None
        plan = plan_launch(self.kind, self._workdir, self.limits, (request_read, reply_write))
        self._launched_with, self._launch_missing, self._lease = plan.confinement, plan.missing, plan.lease
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
        except BaseException:
            self._release_uid()
            raise
        finally:
            for fd in plan.close_after_start:
                os.close(fd)

    def _write_submission(self, workdir: Path) -> None:
        """Put the submission where the harness reads it (``/box`` shows the folder as it is now)."""
        path = workdir / "submission.py"
        path.write_text(self.source, encoding="utf-8")
        path.chmod(0o644)

    def _hello(self) -> bytes:
        """The first message: the nonce the ready message must carry, and a notebook's cells."""
        hello: dict[str, Any] = {"nonce": self._load_nonce}
        if self.cells is not None:  # through the pipe: a notebook's cells may be too many for argv
            hello["cells"] = [list(span) for span in self.cells]
        return wire.pack(hello)

    def _await_ready(self, seconds: float) -> LoadOutcome:
        """Wait for the ready message, charging the wait to the budget."""
        started = time.monotonic()
        try:
            outcome = self._read_ready(min(seconds, max(self.remaining(), 0.001)))
        except MachineStarved:
            raise  # not charged: the machine's fault
        except BaseException:
            self.spent += time.monotonic() - started
            raise
        self.spent += time.monotonic() - started
        return outcome

    def _read_ready(self, seconds: float) -> LoadOutcome:
        try:
            hello, self._pending_hello = self._pending_hello, b""
            line = self._wait_line(seconds, send=hello)
            outcome = read_ready(wire.loads(line), self._load_nonce)
        except MachineStarved:
            self._kill()
            raise
        except TimeoutError:
            self._kill()
            return LoadOutcome("timeout")
        except _BROKEN as problem:
            self._note_forgery(problem)
            code = self._kill(grace=0.2)
            complaint = self._sandbox_complaint()
            if complaint:
                raise SandboxFailure(complaint) from None
            if isinstance(problem, ReplyTooLarge):  # not a crash: it defines too much to report
                return LoadOutcome("crashed", exit_code=code, exception=over_the_cap(self.limits.reply_bytes))
            return LoadOutcome("crashed", exit_code=code)
        self.attempts.extend(outcome.attempts)
        if outcome.confinement is not None:
            own = outcome.confinement
            missing = (*self._launch_missing, *own.missing)
            self.confinement = Confinement(own.uid, (*self._launched_with, *own.applied), missing)
        if outcome.status != "ready":
            self._kill()
        return outcome

    def _note_forgery(self, problem: Exception) -> None:
        """A whole line the harness did not write: student code wrote to the reply pipe.

        The harness writes only well-formed messages carrying the nonce, so a complete line
        that is unreadable, malformed or without the nonce is a forgery. A pipe closed
        mid-message (a crash) or a reply over the size cap (a huge result) is not.
        """
        if isinstance(problem, ChannelClosed | ReplyTooLarge):
            return
        self.forged += 1
        detail = "without the nonce" if isinstance(problem, ForgedMessage) else "malformed"
        self.attempts.append(Tampering("forged message", detail))

    def _sandbox_complaint(self) -> str:
        """What the sandbox itself printed before the harness took over (empty if nothing).

        The harness points fd 2 at /dev/null before anything else, so whatever is here
        came from bubblewrap or from Python failing to start: never from student code.
        """
        if self._errors is None:
            return ""
        self._errors.seek(0)
        return str(self._errors.read(4000).decode("utf-8", "replace").strip())

    def close(self) -> None:
        """Kill the child and everything it started; remove the scratch folder."""
        self._kill()
        self._close_errors()
        self._remove_workdir()

    def _remove_workdir(self) -> None:
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def _kill(self, grace: float = 0.0) -> int | None:
        """Kill the child's whole process group; ``grace`` lets a child that is exiting finish.

        Returns how the child ended: its exit code, ``128 + N`` for a signal N (as
        bubblewrap's init reports it, so that the same submission reads the same in every
        sandbox), or None if that is not known.
        """
        code = None
        if self._process is not None and grace:
            try:
                code = self._process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        if isinstance(self._process, zygote.Box):
            self._process.kill()
        elif self._process is not None:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if self._process is not None:
            try:
                code = self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                code = self._process.wait()
            self._process = None
        if code is not None and code < 0:  # (a plain process: Popen's -N for a signal N)
            code = 128 - code
        self._last_returned = None  # a new child holds no objects of the old one's
        self._ahead = None
        self._pending.clear()  # nothing will answer them now
        self._release_uid()  # only now: the child that had it is gone
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        if self._delay is not None:
            self._delay.close()
            self._delay = None
        return code

    def _release_uid(self) -> None:
        if self._lease is not None:
            self._lease.release()
            self._lease = None

    def _close_errors(self) -> None:
        if self._errors is not None:
            self._errors.close()
            self._errors = None

    # -- calls --------------------------------------------------------------------------

    def call(self, function: str, args: list[Any], then_again: bool = False) -> CallOutcome:
        """Call ``function(*args)`` in the child, within the per-call and per-submission limits.

        ``then_again``: the grader will certainly make :meth:`call_again` right after this
        call if it returns, so the repeat is sent with it, one request for both. The child
        answers each on its own line; each has its own deadline and is charged only its
        own time (the repeat's from the moment the first reply came: the child starts it
        then), and a hang, crash or oversized reply in either is that call's, as when
        they are sent one by one. Only when nothing the grader does between the two can
        decide against the repeat (:mod:`~menace_course.checking.lookahead`).

        Raises:
            MachineStarved: the machine never gave the child its time (nothing charged).
        """
        if self._read:
            taken = self._take_read(function, args)
            if taken is not None:
                return taken
        return self._call_now(function, args, then_again)

    def _call_now(
        self, function: str, args: list[Any], then_again: bool = False, key: bytes | None = None
    ) -> CallOutcome:
        """:meth:`call`, made in the child now (or read from the batch sent ahead).

        ``key``: the arguments' :func:`~menace_course.sandbox.wire.argument_key`, when known.
        """
        self._drop_unused_repeat()
        if self.remaining() <= 0:
            self._end_batch()
            return CallOutcome("budget")
        if function in self.dead_functions or self._broken:
            return CallOutcome("dead")
        request_args = list(args)
        if key is None:
            try:
                key = wire.argument_key(request_args)
            except ValueError as error:
                raise TypeError(f"only plain data can be sent to a submission: {error}") from None
        started = time.monotonic()
        sent = None
        if self._pending:
            head = self._pending[0]
            if head.call.function == function and head.call.key == key:
                sent = self._pending.popleft()  # already asked for: only its reply is read
            else:
                self._resync()  # the test left the batch: the child ran calls it did not make
        outcome = self._restart(function) if self._process is None else None  # charges itself
        if outcome is None:
            calling = time.monotonic()
            outcome = self._call(function, request_args, then_again=then_again, sent=sent, key=key)
            self.spent += time.monotonic() - calling
        return _timed(outcome, time.monotonic() - started)

    def send_ahead(self, calls: Sequence[PlannedCall]) -> int:
        """Send ``calls``, the calls the next test will make, in one write; how many went.

        The child answers them one after another; each :meth:`call` (and
        :meth:`call_again`) that is the next of them reads its reply without sending
        anything. Each reply has its own deadline, starting when the reply before it was
        read (the child began the call then at the latest), and a call is charged only
        the time it was waited for, so no call is charged more than a round trip of its
        own would be. A hang, a crash or a reply over the cap is that call's, handled as
        always: the child is killed, and the calls after it are not made.

        Nothing is sent when the child is not running (it will start for the next call),
        when the budget is spent, or when a call is of a function that is not called any
        more. Calls still unread from an earlier batch are dropped first (:meth:`_resync`).
        """
        self._leave_read_ahead()
        self._drop_unused_repeat()
        if self._pending:
            self._resync()
        if (
            not calls
            or self._process is None
            or self._channel is None
            or self._broken
            or self.remaining() <= 0
            or self.replayed >= REPLAY_SECONDS
            or any(call.function in self.dead_functions for call in calls)
        ):
            return 0
        data, sent = pack_batch(calls, self._next_id)
        self._next_id += len(sent) + sum(1 for item in sent if item.then is not None)
        self._pending.extend(sent)
        self.requests += 1
        delay = self._run_delay()
        self._last_reply = (time.monotonic(), delay.seconds() if delay else 0.0)
        self._channel.queue(data)
        return len(sent)

    def _end_batch(self) -> None:
        """Stop a child that still has calls of a batch to answer (nothing will read them)."""
        if self._pending:
            self._kill()

    def read_known(self) -> tuple[CallOutcome, ...] | None:
        """Read the replies to the calls sent ahead while each is the one the plan knows.

        When every call of the last :meth:`send_ahead` (and every repeat it asked for) was
        answered, byte for byte, as the course's reference answers it
        (:class:`~menace_course.sandbox.batch.KnownReply`), the child has made all of them,
        each charged as :meth:`call` charges it, nothing waits to be read, and the calls'
        outcomes (their repeats' left out) are given back.

        Otherwise reading stops at the first reply that is not the known one (another
        value, something printed, a timeout, a crash, a spent budget: each handled as when
        a call reads it), and None. The outcomes read so far wait, in order, for the
        test's own calls: :meth:`call` and :meth:`call_again` give each as though it had
        just been read, so the test meets the same outcomes and charges as when it reads
        the batch itself. A test that makes another call instead
        (:meth:`_leave_read_ahead`) finds the child as its own calls would have left it.
        """
        self._read_from = self._accounts()
        while self._pending or self._ahead is not None:
            known = self.known_replies
            spent, answered = self.spent, len(self._history)
            if self._ahead is not None:
                entry = ReadAhead(None, b"", self._call_again_now(), spent, answered)
            else:
                planned = self._pending[0].call
                outcome = self._call_now(planned.function, list(planned.args), key=planned.key)
                entry = ReadAhead(planned.function, planned.key, outcome, spent, answered)
            self._read.append(entry)
            if self.known_replies == known:
                return None
        outcomes = tuple(entry.outcome for entry in self._read if entry.function is not None)
        self._read.clear()
        return outcomes

    def _accounts(self) -> Accounts:
        """What a reply not read as known may change in this child's accounts, as it is now."""
        return Accounts(
            self.requests,
            self.forged,
            len(self.attempts),
            frozenset(self.dead_functions),
            tuple(self._crashes.items()),
        )

    def _take_read(self, function: str | None, args: list[Any]) -> CallOutcome | None:
        """The outcome read ahead for this call (``function`` None: the repeat), when it is next.

        None, with the replies read ahead given up, when the test makes another call.
        """
        head = self._read[0]
        if head.function == function:
            try:
                same = function is None or head.key == wire.argument_key(list(args))
            except ValueError:  # not plain data: not a call that was sent
                same = False
            if same:
                self._read.popleft()
                return head.outcome
        self._leave_read_ahead()
        return None

    def _leave_read_ahead(self) -> None:
        """The test did not take the replies read ahead: undo them, and start the child afresh.

        The accounts go back to what they were before the first reply the test did not
        take (nothing is charged for a call the test did not make), and the child is
        started afresh with the calls the test did make (:meth:`_resync`), as when a test
        leaves a batch. A test that makes the calls it made when its plan was learnt never
        comes here.
        """
        if not self._read:
            return
        # Only the last reply read was not a known one, so only it can have changed more than
        # the time spent and the calls answered: the rest is as it was before the reading.
        requests, forged, attempts, dead, crashes = self._read_from
        spent, history = self._read[0].spent, self._read[0].answered
        self._read.clear()
        self.spent, self.requests, self.forged = spent, requests, forged
        del self.attempts[attempts:]
        del self._history[history:]
        self.dead_functions, self._crashes = set(dead), dict(crashes)
        self._resync()

    def call_again(self) -> CallOutcome:
        """Call the last call's function again, on the very objects the child gave it then.

        The objects are as that call left them, so a function that changed its input gets
        a different input now: for a function that must leave its input alone and give
        the same answer for the same input, the two results differ. This is how a changed
        input is seen by behaviour, whatever the child reports as the arguments after a
        call. Only right after a call that returned, in the same child; ``"dead"`` otherwise.
        """
        if self._read:
            taken = self._take_read(None, [])
            if taken is not None:
                return taken
        return self._call_again_now()

    def _call_again_now(self) -> CallOutcome:
        """:meth:`call_again`, made in the child now (or read, when it was asked for ahead)."""
        last = self._last_returned
        if self.remaining() <= 0:
            self._drop_unused_repeat()
            return CallOutcome("budget")
        if self._pending and self._ahead is None:
            self._resync()  # a repeat the batch did not ask for: it would be answered after the rest
            last = self._last_returned
        if last is None or self._process is None:
            return CallOutcome("dead")
        started = time.monotonic()
        if self._ahead is not None:  # already asked for: the child began it when its last reply came
            started = self._ahead[2]
        outcome = self._call(last[1], [None] * last[2], again=last[0])
        self.spent += time.monotonic() - started
        return _timed(outcome, time.monotonic() - started)

    def _drop_unused_repeat(self) -> None:
        """A repeat was sent ahead and no :meth:`call_again` took it: end that child.

        Its answer would otherwise be read as the next call's (and refused as a forgery).
        The child has made one call today's grader would not have; a fresh child is as
        close as the grader can come, so the next call starts one. The lookahead makes
        this a grader fault that should never happen: it is counted, never charged as a
        timeout or crash.
        """
        if self._ahead is not None:
            self.unused_repeats += 1
            self._resync()

    def _resync(self) -> None:
        """Start the child afresh and make again the calls it answered: the tests left a batch.

        The child has run calls (or a repeat) that the tests did not make, so its state may
        not be what the tests' calls alone would have left. A fresh child of the same
        submission is given the calls really made, in order, one by one, charged to no
        one: the budget, the counts of crashes and requests, the dead functions and what
        the harness noticed are as they were before. If the fresh child does not load, or
        a call made again times out or crashes (a submission that does not answer the
        same twice), it is stopped, and the next call starts a fresh child as after a
        crash, without the calls before. So it is if making them again would take longer
        than what is left of :data:`REPLAY_SECONDS`: a slow submission's wall-clock time is
        not spent on the grader's repairs. The hard deadline moves by the time it took.

        Raises:
            MachineStarved, SandboxFailure: as for any start and call (nothing charged).
        """
        self.resyncs += 1
        history = self._history
        self._kill()
        allowance = REPLAY_SECONDS - self.replayed
        if self._broken or allowance <= 0 or self.remaining() <= 0:  # (no budget: no call will be made)
            self._history = []
            return
        began, deadline = time.monotonic(), self.deadline
        self.deadline = began + allowance if deadline is None else min(deadline, began + allowance)
        saved = (
            self.spent,
            self.requests,
            len(self.attempts),
            set(self.dead_functions),
            dict(self._crashes),
            self.forged,
        )
        self._history = []
        try:
            self._start()
            if self._await_ready(self.limits.import_seconds).status != "ready":
                self._kill()
                return
            for function, key in history:
                last = self._last_returned
                if function is not None:
                    self._call(function, marshal.loads(key), key=key)
                elif last is not None:
                    self._call(last[1], [None] * last[2], again=last[0])
                else:
                    break  # the call before did not return this time
                if self._process is None:  # it timed out or crashed this time
                    break
            if len(self._history) != len(history) or self._process is None:
                self._kill()
                self._history = []
        finally:
            spent, requests, attempts, dead, crashes, forged = saved
            self.spent, self.requests, self.forged = spent, requests, forged
            del self.attempts[attempts:]
            self.dead_functions, self._crashes = dead, crashes
            took = time.monotonic() - began
            self.replayed += took
            self.deadline = None if deadline is None else deadline + took

    def _restart(self, function: str) -> CallOutcome | None:
        """Start a fresh child after a timeout or crash; None when it loaded again.

        A restarted child that does not load (it hangs, crashes or now raises) is charged
        like any wait, counted as a crash of the function that was about to be called, and
        ends the calls on this submission: it would do the same on every restart.
        """
        self._start()
        self._history = []  # a fresh child: none of the calls before were made in it
        load = self._await_ready(self.limits.import_seconds)
        if load.status == "ready":
            return None
        self._kill()
        self._broken = True
        self._count_crash(function)
        status: CallStatus = "timeout" if load.status == "timeout" else "crashed"
        return CallOutcome(status, exit_code=load.exit_code)

    def _call(
        self,
        function: str,
        args: list[Any],
        again: int | None = None,
        then_again: bool = False,
        sent: SentCall | None = None,
        key: bytes = b"",
    ) -> CallOutcome:
        """One request; ``again``: call ``again``'s function on its kept objects (``args``: as many).

        An ``again`` whose request went with the last call (:attr:`_ahead`) sends nothing:
        it only reads its reply, and so does a call ``sent`` ahead in a batch (whose
        repeat, if it asked for one, is then ahead). ``then_again`` sends the repeat with
        this call. ``key``: the arguments' :func:`~menace_course.sandbox.wire.argument_key`,
        kept in the child's history.
        """
        ahead, self._ahead = self._ahead, None
        self._last_returned = None
        since = None
        then: tuple[int, str] | None = None
        known = then_known = None
        if again is not None and ahead is not None:
            call_id, nonce = ahead[0], ahead[1]
            request = b""
            since = (ahead[2], ahead[3])
            known = ahead[4]
        elif sent is not None:
            call_id, nonce, then = sent.call_id, sent.nonce, sent.then
            known, then_known = sent.call.reply, sent.call.again_reply
            request = b""
            since = self._last_reply
            self.batched += 1
        else:
            self._next_id += 1
            call_id = self._next_id
            nonce = secrets.token_hex(16)
            message: dict[str, Any] = {"id": call_id, "nonce": nonce}
            message.update({"fn": function, "args": args} if again is None else {"again": again})
            if then_again:
                self._next_id += 1
                then = (self._next_id, secrets.token_hex(16))
                message["then"] = {"id": then[0], "nonce": then[1]}
            request = wire.pack(message)
            self.requests += 1
        budget = self.remaining()
        seconds = min(self.limits.call_seconds, budget)
        try:
            line = self._wait_line(seconds, send=request, since=since)
            if known is not None and line == known.line(call_id, nonce):
                outcome = known.outcome()  # what read_reply gives for these very bytes
                self.known_replies += 1
            else:
                outcome = read_reply(wire.loads(line), call_id, nonce)
                if outcome.status == "returned" and len(outcome.args_after) != len(args):
                    raise ProtocolError("args_after does not match the arguments sent")
        except MachineStarved:
            self._kill()  # nothing counted against the function, nothing charged (call() adds no time)
            raise
        except TimeoutError:
            self._kill()
            self.dead_functions.add(function)
            return CallOutcome("timeout" if seconds >= self.limits.call_seconds else "budget")
        except _BROKEN as problem:
            self._note_forgery(problem)
            code = self._kill(grace=0.2)
            self._count_crash(function)
            if isinstance(problem, ReplyTooLarge):  # not a crash: what it gave back is over the cap
                return CallOutcome("crashed", exit_code=code, exception=over_the_cap(self.limits.reply_bytes))
            return CallOutcome("crashed", exit_code=code)
        self.attempts.extend(outcome.attempts)
        self._history.append((function, key) if again is None else (None, b""))
        if outcome.status == "returned":
            self._last_returned = (call_id, function, len(args))
            if then is not None:  # the child is making the repeat now: its wait starts here
                self._ahead = (then[0], then[1], time.monotonic(), self._starved_now(), then_known)
        if self._pending and self._ahead is None:  # the next call sent ahead is being made now
            self._last_reply = (time.monotonic(), self._starved_now())
        if outcome.exception is not None and outcome.exception.type_name == "MemoryError":
            self._count_crash(function)  # a memory bomb costs a second a call: stop early
        return outcome

    def _starved_now(self) -> float:
        """How long the child has waited for a CPU so far: where the next reply's wait starts.

        Only a wait that runs out reads it back (:meth:`_wait_line`), so when the next reply
        is already in the channel's buffer (read with this one), the clock is not read: its
        wait cannot run out.
        """
        delay = self._run_delay()
        if delay is None or (self._channel is not None and self._channel.has_line()):
            return 0.0
        return delay.seconds()

    def _count_crash(self, function: str) -> None:
        self._crashes[function] = self._crashes.get(function, 0) + 1
        if self._crashes[function] >= self.CRASHES_BEFORE_GIVING_UP:
            self.dead_functions.add(function)
