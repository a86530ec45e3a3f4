"""What ``run_autograder`` runs inside Gradescope: grade one submission into ``results.json``.

::

    python -m menace_course.autograders.gradescope --challenge after_game \\
        [--hidden-visibility after_published] [--sandbox auto] [--root /autograder]

The root is ``--root``, else the ``AUTOGRADER_ROOT`` environment variable, else
``/autograder`` (Gradescope's), so the same program runs against a simulated tree in a test.
It reads ``ROOT/submission/``, grades the student's ``.py`` or ``.ipynb`` file with the
course bundled into this package (hidden tests included: the autograder is the
instructor's), and writes ``ROOT/results/results.json``. It writes that file whatever
happens: a submission without a usable file, or a crash of the grader itself, gives a
score of 0 and a message, and the traceback goes to standard output, which Gradescope
shows to the instructor only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from menace_course.atomic import write_atomic
from menace_course.course import Course
from menace_course.models import SandboxKind, Status, SubmissionReport

DEFAULT_ROOT = Path("/autograder")


def autograder_root(explicit: Path | None = None) -> Path:
    """``--root``, else ``$AUTOGRADER_ROOT``, else ``/autograder``."""
    if explicit is not None:
        return explicit
    return Path(os.environ.get("AUTOGRADER_ROOT") or DEFAULT_ROOT)


@dataclass(frozen=True)
class _Task:
    course: Path
    slug: str
    folder: Path
    sandbox: SandboxKind


def _check(task: _Task) -> SubmissionReport:
    """Check the submission (in the pool's grader process)."""
    from menace_course.checking.pipeline import check_submission
    from menace_course.checking.suite import load_suite

    return check_submission(task.folder, load_suite(Course(task.course), task.slug), task.sandbox)


def grade(root: Path, slug: str, hidden: str, sandbox: str) -> dict[str, Any]:
    """Grade ``root/submission`` and return the results (it raises on a grader crash).

    The file graded is the one every entry point picks (:mod:`menace_course.checking.entry`);
    a submission with nothing to grade scores 0 with a message for the student. The check
    runs in a grader process under a watchdog (:mod:`menace_course.pool`): a submission
    that would hang the grader is stopped and scored 0, with a timeout.
    """
    from menace_course.checking.entry import pick_file
    from menace_course.checking.pipeline import stopped_report, time_allowed
    from menace_course.checking.suite import load_suite
    from menace_course.course import BUNDLED_COURSE
    from menace_course.exports.gradescope_results import Visibility, failure_json, results_json
    from menace_course.pool import GraderLost, Graders, Lost
    from menace_course.sandbox.launch import choose_kind

    started = time.monotonic()
    course = Course(BUNDLED_COURSE)
    if not course.has_hidden_tests:
        print("warning: the installed course has no hidden tests: only the examples are graded")
    suite = load_suite(course, slug)
    function = suite.challenge.function
    folder = root / "submission"
    choice = pick_file(folder, function, slug) if folder.is_dir() else None
    if choice is None or choice.problem is not None:
        why = choice.problem.message if choice and choice.problem else "nothing was handed in"
        message = f"Nothing could be graded: {why}. Upload the file with your {function} function."
        return failure_json(message, execution_time=time.monotonic() - started)
    kind = choose_kind(sandbox)
    print(f"grading {folder} against {slug} (sandbox: {kind})")

    def lost(task: _Task, lost: GraderLost) -> SubmissionReport:
        if lost.reason is not Lost.TIMEOUT:
            raise RuntimeError(f"the grader failed:\n{lost.detail}")
        message = f"checking it did not finish within {lost.seconds:g} seconds, so it was stopped"
        return stopped_report(
            suite, Path(choice.file.shown if choice.file else "?"), kind, Status.TIMEOUT, message
        )

    limit = time_allowed(suite.challenge.limits)
    with Graders(1) as graders:
        task = _Task(course.root, slug, folder, kind)
        (report,) = graders.run(_check, [task], on_lost=lost, seconds=lambda _: limit)
    for line in report.grader_log:  # stdout: Gradescope shows it to the instructor only
        print(line)
    if report.status is Status.GRADER_ERROR:
        # The sandbox or the grader failed (e.g. it could not drop privileges): the
        # student is told it is the grader's fault, never to fix their file.
        why = report.load_problem.message if report.load_problem else "the grader failed"
        raise RuntimeError(f"the grader could not check this submission: {why}")
    elapsed = time.monotonic() - started
    return results_json(report, course.templates_dir, hidden=cast(Visibility, hidden), execution_time=elapsed)


def write_results(root: Path, data: dict[str, Any]) -> Path:
    """Write ``results.json`` whole or not at all (a temporary file, then a rename).

    Whatever a submission put into the results, the file is written and is valid UTF-8
    JSON: a lone surrogate (a file name that is not UTF-8, say), which no UTF-8 file can
    hold, is written as its escape, ``\\udcfc``; control characters are escaped by JSON.
    """
    folder = root / "results"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "results.json"
    write_atomic(target, json.dumps(_writable(data), indent=2, ensure_ascii=False) + "\n")
    return target


def _writable(value: Any) -> Any:
    """``value`` with every string (keys too) made encodable as UTF-8, at any depth."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_writable(key): _writable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_writable(item) for item in value]
    return value


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="menace_course.autograders.gradescope", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--challenge", required=True)
    parser.add_argument(
        "--hidden-visibility",
        default="after_published",
        choices=["visible", "after_published", "after_due_date", "hidden"],
    )
    parser.add_argument("--sandbox", default="auto", choices=["auto", "bwrap", "process"])
    parser.add_argument("--root", type=Path, default=None)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Grade and write ``results.json``; return 0 unless even the results could not be written."""
    arguments = _arguments(argv)
    root = autograder_root(arguments.root)
    started = time.monotonic()
    try:
        data = grade(root, arguments.challenge, arguments.hidden_visibility, arguments.sandbox)
    except BaseException as error:  # the one place a grader crash becomes a result
        traceback.print_exc(file=sys.stdout)
        from menace_course.exports.gradescope_results import failure_json

        data = failure_json(
            "The autograder could not grade this submission: the fault is in the grader, not in "
            f"your code ({type(error).__name__}). Your instructor can see the details; "
            "please let them know.",
            execution_time=time.monotonic() - started,
        )
    try:
        target = write_results(root, data)
    except OSError as error:
        print(f"menace autograder: cannot write results.json: {error}")
        return 1
    print(f"wrote {target}: score {data['score']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
