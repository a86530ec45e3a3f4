"""``menace grade SUBMISSIONS --challenge SLUG --out OUT``: a whole class, sandboxed and in parallel.

This module checks the arguments, shows progress and prints the summary; the batch
itself is :func:`menace_course.grading.session.grade_class`.
"""

from __future__ import annotations

import os
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from menace_course import catalog, language
from menace_course.commands.options import (
    SANDBOX_HELP,
    challenge_option,
    course_option,
    no_sandbox_option,
    sandbox_option,
)
from menace_course.course import find_course
from menace_course.errors import CourseError, MenaceError, SandboxUnavailable, UsageError
from menace_course.exports import counted
from menace_course.grading.record import FAILED, GRADER_ERROR, PASSED, Record, number
from menace_course.grading.session import Request, Summary, grade_class
from menace_course.models import SandboxKind
from menace_course.sandbox.launch import choose_kind

NO_SANDBOX_WARNING = (
    "WARNING: grading WITHOUT a sandbox (--i-accept-no-sandbox). Students' code runs as you, "
    "with your files, your network and your processes within its reach."
)


class RateColumn(ProgressColumn):
    """Submissions graded per second."""

    def render(self, task: Task) -> Text:
        """The current rate, once there is one."""
        return Text(f"{task.speed:.1f}/s" if task.speed else "…/s", style="progress.data.speed")


def _default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _sandbox(requested: str, accept_no_sandbox: bool) -> SandboxKind:
    if requested == "process" and not accept_no_sandbox:
        raise UsageError(
            "--sandbox process runs students' code without isolation; "
            "add --i-accept-no-sandbox if you accept that"
        )
    if requested == "process":
        return "process"
    try:
        return choose_kind("bwrap")
    except SandboxUnavailable as error:
        if not accept_no_sandbox:
            raise SandboxUnavailable(
                f"{error}. menace grade needs it to run students' code safely; to grade without "
                "a sandbox anyway, add --i-accept-no-sandbox"
            ) from error
        return "process"


def _check_folders(submissions: Path, out: Path) -> None:
    if not submissions.exists():
        raise UsageError(f"no such folder: {submissions}")
    if not submissions.is_dir():
        hint = "; unzip it first" if submissions.suffix.lower() == ".zip" else ""
        raise UsageError(f"{submissions} is not a folder{hint}: SUBMISSIONS is the folder of all submissions")
    whole, results = submissions.resolve(), out.resolve()
    if results == whole or results.is_relative_to(whole):
        raise UsageError(
            f"--out {out} is inside {submissions}: it would be taken for a student; put it elsewhere"
        )
    if whole.is_relative_to(results):
        raise UsageError(f"{submissions} is inside --out {out}; put OUT elsewhere")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")


@click.command()
@click.argument("submissions", type=click.Path(path_type=Path))
@challenge_option("The challenge the submissions answer.")
@click.option(
    "--out", required=True, type=click.Path(path_type=Path), help="Where grades, feedback and the report go."
)
@click.option(
    "--jobs", type=click.IntRange(min=1), default=None, help="Parallel graders [default: the CPUs]."
)
@click.option(
    "--regrade",
    is_flag=True,
    help="Grade everything again (after the tests changed); show whose score changed.",
)
@click.option(
    "--feedback-lang",
    "feedback_lang",
    metavar="LANG",
    default=language.ENGLISH,
    show_default=True,
    help=f"The language of the students' feedback files: {' or '.join(language.LANGUAGES)}.",
)
@sandbox_option(SANDBOX_HELP, choices=("bwrap", "process"))
@no_sandbox_option("Grade", who="you")
@course_option
def grade(
    submissions: Path,
    slug: str,
    out: Path,
    jobs: int | None,
    regrade: bool,
    feedback_lang: str,
    sandbox: str,
    accept_no_sandbox: bool,
    course: Path | None,
) -> int:
    """Grade every student's submission in SUBMISSIONS against one challenge.

    \b
    SUBMISSIONS holds one entry per student: NAME.py, NAME.ipynb or a folder NAME/,
    or the folders Canvas and Moodle give when you download all submissions.
    OUT gets grades.csv, results.jsonl, feedback/<student>.{md,html} and report.html.
    Run the same command again after an interruption: it finishes what is left.

    \b
    Example:
      menace grade submissions/ --challenge after_game --out graded/

    Exit code: 0 when the batch completed (whatever the scores), 2 for bad input.
    """
    _check_folders(submissions, out)
    students_language = _feedback_language(feedback_lang)
    the_course = find_course(course)
    if not the_course.has_hidden_tests:
        raise UsageError(
            f"the course at {the_course.root} has no hidden tests (it is a student's kit); "
            "grade in the instructor's course folder, or name it with --course DIR"
        )
    challenge = catalog.load_challenge(the_course, slug)
    kind = _sandbox(sandbox, accept_no_sandbox)
    if kind == "process":
        click.secho(f"menace: {NO_SANDBOX_WARNING}", err=True, fg="red", bold=True)
    request = Request(
        submissions,
        out,
        the_course,
        challenge,
        kind,
        jobs or _default_jobs(),
        regrade,
        feedback_language=students_language,
    )
    summary = _run_with_progress(request)
    _print_summary(summary, out, regrade)
    if summary.feedback_errors:
        raise CourseError(
            f"the feedback of {counted(len(summary.feedback_errors), 'student')} could not be written "
            "(see above): fix the course's feedback templates and run the same command again"
        )
    return 0


def _feedback_language(tag: str) -> str:
    """The catalog for ``--feedback-lang``; an unknown one is refused, not replaced.

    (``--lang`` falls back to English with a line on the terminal; a whole class's feedback
    files written in a language nobody asked for would be found only by the students.)
    """
    found = language.known(tag)
    if found is None:
        raise UsageError(
            f"--feedback-lang {tag!r}: there is no translation for it; "
            f"choose one of {', '.join(language.LANGUAGES)}"
        )
    return found


def _run_with_progress(request: Request) -> Summary:
    console = Console(stderr=True)
    columns = (
        TextColumn("grading"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("grading", total=None)

        def started(total: int) -> None:
            progress.update(task, total=total)

        def graded(record: Record) -> None:
            progress.advance(task)

        try:
            return grade_class(request, started, graded)
        except KeyboardInterrupt:
            progress.stop()
            done = int(progress.tasks[0].completed)
            click.echo(f"menace: {done} graded and kept; run the same command again to finish.", err=True)
            raise
        except OSError as error:  # a full disk, a folder that went away: say so, keep what is done
            where = error.filename or request.out
            raise MenaceError(
                f"stopped: {where}: {error.strerror}. What was graded so far is kept; "
                "fix this and run the same command again"
            ) from error


def _print_summary(summary: Summary, out: Path, regrade: bool = False) -> None:
    stats = summary.stats
    rate = summary.graded / summary.seconds if summary.seconds else 0.0
    not_run = stats.students - stats.ran - stats.statuses[GRADER_ERROR]
    click.echo(
        f"Graded {counted(summary.graded, 'submission')} in {summary.seconds:.1f} s "
        f"({rate:.1f} a second); {summary.already_graded} already graded."
    )
    click.echo(
        f"{counted(stats.students, 'student')}: "
        f"passed {stats.statuses[PASSED]}, failed {stats.statuses[FAILED]}, "
        f"timed out {stats.ran - stats.statuses[PASSED] - stats.statuses[FAILED]}, "
        f"errors {not_run} (nothing could run), grader errors {stats.statuses[GRADER_ERROR]}."
    )
    for change in summary.changes:
        click.echo(f"  score changed: {change.student}: {number(change.before)} -> {number(change.after)}")
    if regrade and summary.graded and not summary.changes:
        click.echo("No score changed (every submission graded before kept its score).")
    if summary.ignored:
        click.echo(f"Left out (system or hidden files): {', '.join(summary.ignored)}")
    if summary.orphans:
        kept = counted(len(summary.orphans), "earlier result of an entry", "earlier results of entries")
        click.echo(
            f"Kept but not listed: {kept} no longer in "
            f"SUBMISSIONS ({', '.join(summary.orphans[:5])}{', ...' if len(summary.orphans) > 5 else ''})"
        )
    for error in summary.feedback_errors:
        click.secho(f"menace: feedback not written: {error}", err=True, fg="red")
    click.echo(
        f"Wrote {out / 'grades.csv'}, {out / 'results.jsonl'}, {out / 'report.html'} and {out / 'feedback'}/"
    )
