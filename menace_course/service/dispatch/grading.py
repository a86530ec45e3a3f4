"""The service's one way into the grader: :func:`check_submission`, and the grader process around it.

Every check the service runs, whatever dispatches it (the local pool here, a task queue's
worker elsewhere), ends in :func:`check_submission`: the submission as ``(filename, text)``
is read by the same loader as ``menace check FILE`` (size, encoding, notebooks, syntax),
then checked by the same pipeline, in the same sandbox, with the challenge's own limits.
It is the only function of the service that calls the pipeline.

A grader process (:func:`grader_main`) is trusted code: it imports every challenge's
hidden tests once, when it starts (so a check pays only for its sandbox and its tests),
then answers jobs on a pipe. Student code never runs in it, only in the sandboxed child
each check starts.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from menace_course import catalog
from menace_course.checking.loader import Source, read_submission
from menace_course.checking.pipeline import check_source
from menace_course.checking.suite import Suite, collect
from menace_course.course import Course
from menace_course.models import LoadProblem, SandboxKind, Status
from menace_course.service.dispatch.base import CheckJob

#: What a student reads when the grader, not their file, failed (the same words as ``menace grade``).
GRADER_FAILED = (
    "the grader failed while checking this file; this is not your mistake, and your teacher can see why"
)


@functools.cache
def suite_for(course_root: str, slug: str) -> Suite:
    """A challenge's tests, collected once per process."""
    course = Course(Path(course_root))
    return collect(course, catalog.load_challenge(course, slug))


def warm(course_root: str) -> list[str]:
    """Collect every challenge's tests now, so that no student waits for it; their slugs."""
    from menace_course.sandbox.worker import compiled_harness

    compiled_harness()
    slugs = catalog.list_slugs(Course(Path(course_root)))
    for slug in slugs:
        suite_for(course_root, slug)
    return slugs


def check_submission(
    course_root: str, job: CheckJob, sandbox: SandboxKind, failure: str | None = None
) -> dict[str, Any]:
    """Check one submission and return its report as ``menace check --format json`` prints it.

    With ``failure`` (the grader broke on this job before), nothing runs: the report says
    the grader failed, every test skipped, so the student is never blamed for our fault.
    """
    suite = suite_for(course_root, job.challenge)
    if failure is not None:
        source = Source(Path(job.filename), "", Status.GRADER_ERROR, LoadProblem(GRADER_FAILED))
    else:
        with tempfile.TemporaryDirectory(prefix="menace-upload-") as folder:
            path = Path(folder) / job.filename
            path.write_text(job.source, encoding="utf-8")
            source = read_submission(path)
    return check_source(source, suite, sandbox).to_dict()


def where(error: BaseException) -> str:
    """An exception as a one-line place for the log: type, message, and file:line of each frame.

    No source lines: a frame in a hidden test must not put its code in the log.
    """
    frames = []
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(f"{Path(code.co_filename).name}:{tb.tb_lineno} {code.co_name}")
        tb = tb.tb_next
    return f"{type(error).__name__}: {str(error)[:200]} (at {' < '.join(reversed(frames[-6:]))})"


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
            reply = {"report": check_submission(course_root, job, sandbox, request.get("failure"))}
        except Exception as error:  # our bug: the student gets a grader error, the log says where
            try:
                report = check_submission(course_root, job, sandbox, failure=where(error))
                reply = {"report": report, "error": where(error)}
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
