"""``menace check FILE``: a student's file through the sandbox and back as feedback.

Also ``menace list``: the course's challenges.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from menace_course import catalog, wording
from menace_course.catalog import Challenge
from menace_course.checking.loader import Source, calls_by_function, read_submission
from menace_course.commands.options import challenge_option, course_option, lang_option, sandbox_option
from menace_course.course import Course, find_course
from menace_course.errors import UsageError
from menace_course.language import gettext as _
from menace_course.models import Outcome, Status, SubmissionReport
from menace_course.sandbox.launch import BwrapProbe, choose_kind
from menace_course.terminal import print_feedback


def _read(course: Course, file: Path, slug: str | None) -> tuple[Source, list[Challenge]]:
    """Read FILE (in a folder, the file the shared rule picks) and the challenges it answers."""
    if not file.is_dir():
        source = read_submission(file)
        return source, _challenges_for(course, source, slug)
    from menace_course.checking.entry import entry_files
    from menace_course.checking.pipeline import Target, read_source

    if slug is not None:
        challenge = catalog.load_challenge(course, slug)
        return read_source(file, Target.of(challenge)), [challenge]
    files = entry_files(file).files
    if len(files) != 1:
        raise UsageError(
            _(
                "%(folder)s is a folder with %(count)s .py or .ipynb files: name the challenge with "
                "--challenge SLUG, and the file that defines its function is checked"
            )
            % {"folder": file, "count": len(files)}
        )
    source = read_submission(files[0].path)
    return source, _challenges_for(course, source, slug)


def _challenges_for(course: Course, source: Source, slug: str | None) -> list[Challenge]:
    """The challenges a file answers: named by ``--challenge``, else found from the file.

    Found from the functions it defines; failing that (a syntax error, a misspelt name,
    a file that cannot be read at all), from its ``def`` lines, its file name, or the
    closest challenge function to a name it defines, so that the feedback gives the real
    cause (the size, the binary content, the typo) instead of a guess that it answers nothing.
    """
    if slug is not None:
        return [catalog.load_challenge(course, slug)]
    found = catalog.detect(course, set(source.defined))
    if len(found) > 1:
        found = _without_helpers(found, source)
    if found:
        return found
    by_file_name = [c for c in catalog.load_all(course) if source.path.stem in (c.slug, c.function)]
    if source.status is Status.UNREADABLE:
        if by_file_name:
            return by_file_name  # the report for that challenge says why the file cannot be read
        assert source.problem is not None
        message = wording.reworded(source.problem.message, _)
        raise UsageError(
            _("%(file)s cannot be checked: %(why)s") % {"file": source.path.name, "why": message}
        )
    # The file could not be parsed, or defines none of the functions: guess from its text
    # or its name, so that a syntax error still gets feedback for the right challenge.
    names = set(re.findall(r"^\s*def\s+(\w+)", source.text, flags=re.MULTILINE)) | set(source.defined)
    found = catalog.detect(course, names) or by_file_name or _closest(course, names)
    if found:
        return found
    slugs = ", ".join(catalog.list_slugs(course))
    raise UsageError(
        _(
            "%(file)s defines none of the challenges' functions (%(slugs)s); "
            "name the challenge with --challenge SLUG"
        )
        % {"file": source.path.name, "slugs": slugs}
    )


def _closest(course: Course, names: set[str]) -> list[Challenge]:
    """Challenges whose function a defined name misspells (``after_gme`` for ``after_game``)."""
    import difflib  # only a misspelt name pays for it

    challenges = catalog.load_all(course)
    functions = [c.function for c in challenges]
    close = {m for name in names for m in difflib.get_close_matches(name, functions, n=1, cutoff=0.8)}
    return [c for c in challenges if c.function in close]


def _without_helpers(found: list[Challenge], source: Source) -> list[Challenge]:
    """Drop challenges whose function the file only uses as a helper of another answer.

    The count_boxes starter defines the lesson's ``name`` helper, which is also the
    ``name`` challenge's function; such a file answers count_boxes, not both. A file named
    after one challenge (``count_boxes.py``) answers that one.
    """
    by_stem = [c for c in found if c.slug == source.path.stem]
    if by_stem:
        return by_stem
    called = calls_by_function(source.text)
    helpers = {
        c.function
        for c in found
        for other in found
        if other is not c and c.function in called.get(other.function, set())
    }
    return [c for c in found if c.function not in helpers] or found


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@challenge_option("Which challenge (default: from the functions the file defines).", required=False)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "html", "json"]),
    default="text",
    show_default=True,
    help="How to show the feedback.",
)
@sandbox_option("bwrap isolates your code fully (Linux); process is a plain child process.")
@click.option("--ascii", "ascii_only", is_flag=True, help="Use :) :( :| instead of ✓ ✗ –.")
@click.option(
    "--server",
    envvar="MENACE_SERVER",
    metavar="URL",
    help="Check on the course's check service, hidden tests included (or set MENACE_SERVER; "
    "your token goes in MENACE_TOKEN).",
)
@course_option
@lang_option
def check(
    file: Path,
    slug: str | None,
    output_format: str,
    sandbox: str,
    ascii_only: bool,
    server: str | None,
    course: Path | None,
) -> int:
    """Check the function(s) in FILE (.py or .ipynb) and explain what is right and wrong.

    \b
    Examples:
      menace check after_game.py
      menace check my_notebook.ipynb --challenge opening_box
      menace check after_game.py --format json
      menace check after_game.py --server https://menace.example.edu   (hidden tests too)

    \b
    Exit code:
      0  every check passes, the hidden ones too
      1  some check does not pass
      2  FILE cannot be read, or the challenge is unknown
      3  every check that ran passes, but the hidden checks did not run here
         (a student's kit has only the examples; they run when your instructor grades)
    """
    if server:  # h-service: the hidden tests run on the course's check service
        from menace_course.service.client import check_on_server

        remote = check_on_server(
            server, file, slug, course, _read, output_format=output_format, ascii_only=ascii_only
        )
        if remote is not None:
            return exit_code(remote)
    # Whether bubblewrap works here is asked first, and answered while the file is read.
    probe = BwrapProbe() if sandbox != "process" else None
    the_course = find_course(course)
    source, challenges = _read(the_course, file, slug)
    from menace_course.checking.pipeline import Target, check_submission, start_child

    kind = choose_kind(sandbox, probe)
    # Start the sandboxed children first: they load the file while this process collects
    # the tests, one core each.
    children = [start_child(source, Target.of(c), kind) for c in challenges]
    from menace_course.checking.suite import SUITES

    # The process's suites: a warm checker's copy finds the suite its warm checker loaded
    # after the last check (menace_course.warm.preload), if none of its files changed since.
    suites = [SUITES.get(the_course, c.slug) for c in challenges]
    if output_format != "json":
        # The templates' engine loads now, while the children start (about 25 ms in bubblewrap);
        # after the checks, it would add its own time to theirs.
        import menace_course.feedback  # noqa: F401
    reports = [
        check_submission(source, suite, kind, child=child)
        for suite, child in zip(suites, children, strict=True)
    ]
    _show(reports, output_format, the_course, ascii_only)
    return exit_code(reports)


#: ``menace check``'s exit code when every check that ran passed but the hidden ones did not
#: run (a student's kit): not 0, which promises that the challenge is passed.
HIDDEN_NOT_RUN = 3


def exit_code(reports: list[SubmissionReport]) -> int:
    """0: every check passed; 1: some did not; 2: the file could not be checked at all;
    3: every check that ran passed, but the hidden checks did not run here."""
    if any(r.status in (Status.UNREADABLE, Status.GRADER_ERROR) for r in reports):
        return 2
    if all(r.passed for r in reports):
        return 0
    ran_and_passed = all(
        r.status is Status.CHECKED and not r.integrity and all(t.outcome is Outcome.PASSED for t in r.tests)
        for r in reports
    )
    return HIDDEN_NOT_RUN if ran_and_passed else 1


def _show(reports: list[SubmissionReport], output_format: str, course: Course, ascii_only: bool) -> None:
    if output_format == "json":
        from menace_course.student_view import student_dict

        data = [student_dict(r) for r in reports]  # what a student may see, as text shows it
        click.echo(json.dumps(data[0] if len(data) == 1 else data, indent=2, ensure_ascii=False))
        return
    from menace_course.feedback import render_many

    text = render_many(reports, course.templates_dir, output_format)  # type: ignore[arg-type]
    if output_format == "text":
        print_feedback(text, ascii_only=ascii_only)
    else:
        click.echo(text, nl=False)


@click.command("list")
@course_option
def list_challenges(course: Path | None) -> int:
    """List the course's challenges: slug, stars and title."""
    the_course = find_course(course)
    for challenge in catalog.load_all(the_course):
        click.echo(f"{challenge.slug:<16} {'★' * challenge.stars:<4} {challenge.title}")
    return 0
