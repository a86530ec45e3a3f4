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
from pathlib import Path
from typing import Any, cast

from menace_course.errors import MenaceError

DEFAULT_ROOT = Path("/autograder")
#: Folders and files a submission may carry that are never the student's answer.
_IGNORED_PARTS = ("__MACOSX", ".ipynb_checkpoints", "__pycache__")


def autograder_root(explicit: Path | None = None) -> Path:
    """``--root``, else ``$AUTOGRADER_ROOT``, else ``/autograder``."""
    if explicit is not None:
        return explicit
    return Path(os.environ.get("AUTOGRADER_ROOT") or DEFAULT_ROOT)


def candidates(folder: Path) -> list[Path]:
    """The ``.py`` and ``.ipynb`` files of a submission, leaving out editor and OS clutter."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        if any(p.startswith(".") or p in _IGNORED_PARTS for p in parts):
            continue
        if path.is_file() and path.suffix.lower() in (".py", ".ipynb"):
            found.append(path)
    return found


def choose_file(folder: Path, slug: str, function: str) -> Path:
    """The one file to grade: named after the challenge, else the only one defining its function.

    Raises:
        MenaceError: no file, or several with no way to tell which one is meant; the
            message is written for the student.
    """
    from menace_course.checking.loader import read_submission

    files = candidates(folder)
    if not files:
        others = sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
        seen = f" (the submission has: {', '.join(others[:10])})" if others else ""
        raise MenaceError(
            f"No .py or .ipynb file was found in your submission{seen}. "
            f"Upload the file with your {function} function."
        )
    if len(files) == 1:
        return files[0]
    named = [p for p in files if p.stem in (slug, function)]
    if len(named) >= 1:
        return sorted(named, key=lambda p: (p.suffix != ".py", len(p.parts)))[0]
    defining = [p for p in files if function in read_submission(p).defined]
    if len(defining) == 1:
        return defining[0]
    names = ", ".join(str(p.relative_to(folder)) for p in files)
    raise MenaceError(
        f"Your submission has several files ({names}) and the autograder cannot tell which "
        f"one to grade. Name it {slug}.py, or upload only the file with your {function} function."
    )


def grade(root: Path, slug: str, hidden: str, sandbox: str) -> dict[str, Any]:
    """Grade ``root/submission`` and return the results (it raises on a grader crash)."""
    from menace_course import catalog
    from menace_course.checking.loader import read_submission
    from menace_course.checking.pipeline import check_source
    from menace_course.checking.suite import collect
    from menace_course.course import BUNDLED_COURSE, Course
    from menace_course.exports.gradescope_results import Visibility, failure_json, results_json
    from menace_course.sandbox.launch import choose_kind

    started = time.monotonic()
    course = Course(BUNDLED_COURSE)
    if not course.has_hidden_tests:
        print("warning: the installed course has no hidden tests: only the examples are graded")
    challenge = catalog.load_challenge(course, slug)
    try:
        path = choose_file(root / "submission", slug, challenge.function)
    except MenaceError as problem:
        return failure_json(str(problem), execution_time=time.monotonic() - started)
    kind = choose_kind(sandbox)
    print(f"grading {path} against {slug} (sandbox: {kind})")
    report = check_source(read_submission(path), collect(course, challenge), kind)
    elapsed = time.monotonic() - started
    return results_json(report, course.templates_dir, hidden=cast(Visibility, hidden), execution_time=elapsed)


def write_results(root: Path, data: dict[str, Any]) -> Path:
    """Write ``results.json`` whole or not at all (a temporary file, then a rename)."""
    folder = root / "results"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "results.json"
    partial = folder / ".results.json.partial"
    partial.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, target)
    return target


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
