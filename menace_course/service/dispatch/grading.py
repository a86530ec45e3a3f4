"""The service's one way into the grader: :func:`check_job`, and the grader process around it.

Every check the service runs, whatever dispatches it (the local pool here, a task queue's
worker elsewhere), ends in :func:`check_job`, which hands the submission as
``(filename, bytes)`` to the one submission path,
:func:`~menace_course.checking.pipeline.check_submission`: read by the same loader as
``menace check FILE`` (size, encoding, notebooks, syntax), checked by the same pipeline,
in the same sandbox, with the challenge's own limits. It is the only function of the
service that calls the grader.

A grader process (:func:`grader_main`) is trusted code: it imports every challenge's
hidden tests once, when it starts (so a check pays only for its sandbox and its tests),
then answers jobs on a pipe. Student code never runs in it, only in the sandboxed child
each check starts.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from menace_course import catalog
from menace_course.checking.loader import Source
from menace_course.checking.pipeline import GRADER_FAILED, check_submission
from menace_course.checking.suite import SUITES, Suite
from menace_course.course import Course
from menace_course.models import LoadProblem, SandboxKind, Status, SubmissionReport
from menace_course.service.dispatch.base import CheckJob


def suite_for(course_root: str, slug: str) -> Suite:
    """A challenge's tests, collected once per process and again whenever one of its files changes."""
    return SUITES.get(Course(Path(course_root)), slug)


def warm(course_root: str) -> list[str]:
    """Collect every challenge's tests now, so that no student waits for it; their slugs."""
    from menace_course.sandbox.worker import compiled_harness

    compiled_harness()
    slugs = catalog.list_slugs(Course(Path(course_root)))
    for slug in slugs:
        suite_for(course_root, slug)
    return slugs


def check_job(
    course_root: str, job: CheckJob, sandbox: SandboxKind, failure: str | None = None
) -> SubmissionReport:
    """Check one submission through the one submission path; its report (as ``menace check`` makes it).

    With ``failure`` (the grader broke on this job before), nothing runs: the report says
    the grader failed, every test skipped, so the student is never blamed for our fault.
    """
    suite = suite_for(course_root, job.challenge)
    if failure is not None:
        source = Source(Path(job.filename), "", Status.GRADER_ERROR, LoadProblem(GRADER_FAILED))
        return check_submission(source, suite, sandbox)
    return check_submission((job.filename, job.source.encode("utf-8")), suite, sandbox)


#: What an exception's type line is reduced to in the log: a (dotted) name, nothing else.
_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]{0,99}")
#: The first line of a test's grader log (checking/runner.py): ``test NAME:``.
_TEST_NAME = re.compile(r"test [A-Za-z_]\w{0,99}:")


def where(error: BaseException) -> str:
    """An exception as a one-line place for the log: its type, and file:line of each frame.

    Neither its message nor source lines: a grader bug may raise with a hidden test's
    input or answer in its message, and a frame in a hidden test must not put its code in
    the log. The type and the places are enough to find the line in our code.
    """
    frames = []
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(f"{Path(code.co_filename).name}:{tb.tb_lineno} {code.co_name}")
        tb = tb.tb_next
    return f"{type(error).__name__} (at {' < '.join(reversed(frames[-6:]))})"


def _type_of(lines: list[str]) -> str:
    """The exception type a formatted traceback ends with (its message left out).

    The type line is the first line after the last frame that is not indented; a message
    may follow it on that line and on the lines after it.
    """
    last_frame = max((i for i, ln in enumerate(lines) if ln.startswith("  File ")), default=-1)
    for line in lines[last_frame + 1 :]:
        if line and not line.startswith(" "):
            name = _TYPE_NAME.match(line.split(":", 1)[0].strip())
            return name.group(0) if name else "an exception"
    return "an exception"


def without_code(tracebacks: tuple[str, ...]) -> str:
    """Tracebacks for the log: where each frame was and the exception's type, nothing else.

    A hidden test's code (the source lines) and the exception's message (which may hold a
    hidden input or answer) are left out; the student's report never had them.
    """
    kept = []
    for text in tracebacks:
        lines = text.rstrip().splitlines()
        name = _TEST_NAME.match(lines[0]) if lines else None
        kept += [name.group(0)] if name else []  # a test's name is public (the report shows it)
        kept += [ln.strip() for ln in lines if ln.startswith(("  File ", "Traceback"))]
        if lines:
            kept.append(_type_of(lines))
    return " | ".join(kept)


def _watch_parent(parent: int) -> None:
    """End this process when the web process is gone, even after ``kill -9``."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.25)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="watch-parent").start()


def grader_main(conn: Connection, course_root: str, sandbox: SandboxKind, parent: int) -> None:
    """A grader process: warm up, say ``ready``, then check each job the pipe brings.

    Requests are ``{"job": {...}, "failure": str | None}``; replies are ``{"report": {...}}``
    or, when even a failure report cannot be made, ``{"error": "..."}``. ``None`` or a
    closed pipe ends the process.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _watch_parent(parent)
    try:
        slugs = warm(course_root)
    except Exception as error:  # a broken course: the pool reports it and checks get grader errors
        conn.send({"ready": False, "error": where(error)})
        return
    conn.send({"ready": True, "challenges": slugs, "pid": os.getpid()})
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        job = CheckJob.from_dict(request["job"])
        reply: dict[str, Any]
        try:
            report = check_job(course_root, job, sandbox, request.get("failure"))
            reply = {"report": report.to_dict()}
            if report.grader_log:
                reply["error"] = without_code(report.grader_log)
        except Exception as error:  # our bug: the student gets a grader error, the log says where
            try:
                reply = {"report": check_job(course_root, job, sandbox, failure=where(error)).to_dict()}
                reply["error"] = where(error)
            except Exception as again:
                reply = {"error": where(again)}
        conn.send(reply)


def main(argv: list[str]) -> None:
    """``python -m menace_course.service.dispatch.grading FD COURSE SANDBOX PARENT_PID``."""
    fd, course_root, sandbox, parent = argv
    if sandbox not in ("bwrap", "process"):
        raise SystemExit(f"unknown sandbox {sandbox!r}")
    grader_main(Connection(int(fd)), course_root, sandbox, int(parent))  # type: ignore[arg-type]


if __name__ == "__main__":
    main(sys.argv[1:])
