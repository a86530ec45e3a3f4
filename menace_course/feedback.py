"""Turn a :class:`~menace_course.models.SubmissionReport` into words: text, markdown or HTML.

All wording a student reads lives in the course's ``feedback_templates/`` (jinja2); this
module only prepares the report for them and picks the template. Every string a student
controls (what their code printed, reprs of what it returned, exception and function
names, file names) is made printable and capped before any template sees it
(:func:`shown`), and each format escapes it again for its own syntax
(:mod:`~menace_course.safe_text`): HTML by autoescaping, markdown with the ``md_text``,
``md_code`` and ``md_fence`` filters. So it can never pose as a verdict.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path
from typing import Any, Literal

import jinja2
import markupsafe

from menace_course import language as language_
from menace_course import wording
from menace_course.cache import trusted_folder
from menace_course.models import Detail, Outcome, Problem, SubmissionReport, TestKind, TestResult
from menace_course.safe_text import STUDENT_TEXT_CAP, cap, cap_block, md_code, md_fence, md_text, printable
from menace_course.student_view import student_view

Format = Literal["text", "markdown", "html"]
TEMPLATE_FOR: dict[str, str] = {
    "text": "report.txt.j2",
    "markdown": "report.md.j2",
    "html": "report.html.j2",
}
#: Longest name (function, exception type, file) shown.
NAME_CAP = 100


def _code_html(text: str) -> str:
    """Escape for HTML, then show `backticks` as code."""
    import html  # (an html report only)

    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _bytecode_cache(format: Format) -> jinja2.BytecodeCache | None:
    """Keep compiled templates between runs (compiling them is a third of a check's rendering).

    One cache per format: jinja2 keys compiled code by the template's name and source only,
    but autoescaping (on for html) is compiled into it, so a hint compiled for an html report
    and loaded for a text one would show ``Michie&#39;s`` in the terminal.
    """
    folder = trusted_folder("templates")  # compiled code is loaded from here: only from our own folder
    if folder is None:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder), f"__jinja2_{format}_%s.cache")


def problem_words(language: str, problem: Problem | str, fn: str) -> str:
    """The sentence for ``problem`` (:mod:`~menace_course.wording`'s table) in ``language``, naming ``fn``."""
    return language_.gettext(wording.SENTENCES[Problem(problem)], language) % {"fn": fn}


def raised_words(language: str, fn: str, kind: str | None) -> str:
    """What a call that raised did, naming the builtin ``kind`` when the grader knows one."""
    text = language_.gettext(wording.sentence_id(Problem.RAISED, kind), language)
    return text % {"fn": fn, "kind": kind or ""}


def problem_message(language: str, problem: Problem | str) -> str:
    """``problem``'s sentence without its subject, as a report's message reads, in ``language``."""
    text = wording.subjectless(language_.gettext(wording.sentence_id(problem), language))
    word = language_.gettext(wording.THE_FUNCTION, language)
    if not word.isascii():  # a language written without spaces between words (Chinese)
        text = text.replace(f" {wording.THE_FUNCTION} ", wording.THE_FUNCTION)
    return text.replace(wording.THE_FUNCTION, word)


@functools.cache
def environment(templates: Path, format: Format, language: str = language_.ENGLISH) -> jinja2.Environment:
    """A jinja2 environment over the course's templates, with the filters they use, in ``language``.

    One per folder, format and language for the life of the process: a class's feedback
    reuses the compiled templates instead of loading them again for every student. The
    templates' sentences are gettext message ids (jinja2's i18n extension, newstyle):
    ``_("...", name=value)``, translated from ``menace_course/locale``.
    """
    env = jinja2.Environment(
        extensions=["jinja2.ext.i18n"],
        loader=jinja2.FileSystemLoader(str(templates)),
        bytecode_cache=_bytecode_cache(format),
        autoescape=format == "html",
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cap"] = cap
    env.filters["cap_block"] = cap_block
    env.filters["md_text"] = md_text
    env.filters["md_code"] = md_code
    env.filters["md_fence"] = md_fence
    env.filters["code"] = lambda text: markupsafe.Markup("<code>%s</code>") % str(text)
    env.filters["codehtml"] = lambda text: markupsafe.Markup(_code_html(str(text)))
    env.filters["indent_lines"] = lambda text, n=4: "\n".join(" " * n + ln for ln in str(text).splitlines())
    env.globals["hint_text"] = lambda hint_id: hint_text(env, hint_id)
    env.globals["problem_words"] = functools.partial(problem_words, language)
    env.globals["raised_words"] = functools.partial(raised_words, language)
    env.globals["problem_message"] = functools.partial(problem_message, language)
    translate = functools.partial(language_.gettext, language=language)
    env.globals["reworded"] = lambda text: wording.reworded(str(text), translate)
    env.globals["html_lang"] = language.replace("_", "-")
    env.install_gettext_translations(language_.translations(language), newstyle=True)  # type: ignore[attr-defined]
    return env


def hint_text(env: jinja2.Environment, hint_id: str | None) -> str:
    """The words of a hint (``hints/<id>.md.j2``); empty when there is none."""
    if not hint_id:
        return ""
    return env.get_template(f"hints/{hint_id}.md.j2").render().strip()


def hint_ids(templates: Path) -> set[str]:
    """Every hint id the course has words for."""
    return {p.name.removesuffix(".md.j2") for p in (templates / "hints").glob("*.md.j2")}


def _name(text: str) -> str:
    return cap(text, NAME_CAP)


def _optional(text: str | None, limit: int = STUDENT_TEXT_CAP) -> str | None:
    return None if text is None else cap(text, limit)


def _shown_detail(detail: Detail | None) -> Detail | None:
    if detail is None:
        return None
    return dataclasses.replace(
        detail,
        call=_optional(detail.call),
        expected=_optional(detail.expected),
        got=_optional(detail.got),
        got_type=_optional(detail.got_type, NAME_CAP),
        first_difference=_optional(detail.first_difference),
        argument_after=_optional(detail.argument_after),
        printed=cap_block(detail.printed) if detail.printed else detail.printed,
        error_type=_optional(detail.error_type, NAME_CAP),
        error_message=_optional(detail.error_message),
        traceback=tuple(
            dataclasses.replace(line, function=_name(line.function), code=cap(line.code))
            for line in detail.traceback
        ),
        note=_optional(detail.note),
    )


def shown_test(test: TestResult) -> TestResult:
    """One test with every string a student controls made printable and capped (see :func:`shown`)."""
    return dataclasses.replace(test, message=cap(test.message), detail=_shown_detail(test.detail))


def shown(report: SubmissionReport) -> SubmissionReport:
    """The report with every string a student controls made printable and capped.

    What their code printed keeps its line breaks; everything else is one line. Names
    (files, functions, exception types) are capped shorter than other text.
    """
    problem = report.load_problem
    if problem is not None:
        problem = dataclasses.replace(
            problem,
            message=cap(problem.message),
            detail=_shown_detail(problem.detail),
            functions_found=tuple(_name(name) for name in problem.functions_found[:50]),
        )
    return dataclasses.replace(
        report,
        file=_name(report.file),
        student=_optional(report.student, NAME_CAP),
        tests=tuple(shown_test(t) for t in report.tests),
        load_problem=problem,
        printed_at_load=cap_block(report.printed_at_load) if report.printed_at_load else None,
        notices=tuple(printable(n) for n in report.notices),
    )


def _view(report: SubmissionReport) -> dict[str, Any]:
    report = shown(student_view(report))  # feedback is for students: only what they may see
    tests = list(report.tests)
    examples = [t for t in tests if t.kind is TestKind.EXAMPLE]
    others = [t for t in tests if t.kind is not TestKind.EXAMPLE]
    visible_failures = [
        t for t in tests if t.is_visible and t.outcome not in (Outcome.PASSED, Outcome.SKIPPED)
    ]
    return {
        "report": report,
        "examples": examples,
        "others": others,
        "first_failure": visible_failures[0] if visible_failures else None,
        "failed": [t for t in tests if t.outcome is not Outcome.PASSED],
        "passed_count": sum(t.outcome is Outcome.PASSED for t in tests),
        "Outcome": Outcome,
        "TestKind": TestKind,
    }


def render(
    report: SubmissionReport, templates: Path, format: Format = "text", language: str | None = None
) -> str:
    """The report in words, in one of the three formats: always the student's view of it.

    What a student may see is decided by :func:`~menace_course.student_view.student_view`
    (never here, never in a template): a hidden test's words are made of its title, hint,
    problem code and builtin exception kind only. ``language`` defaults to
    :func:`menace_course.language.current`.
    """
    env = environment(templates, format, language or language_.current())
    return env.get_template(TEMPLATE_FOR[format]).render(**_view(report))


def render_many(
    reports: list[SubmissionReport], templates: Path, format: Format = "text", language: str | None = None
) -> str:
    """Several reports (a file answering several challenges), one after another."""
    separator = "\n" if format != "html" else "\n<hr>\n"
    return separator.join(render(r, templates, format, language) for r in reports)
