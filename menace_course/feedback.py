"""Turn a :class:`~menace_course.models.SubmissionReport` into words: text, markdown or HTML.

All wording a student reads lives in the course's ``feedback_templates/`` (jinja2); this
module only prepares the report for them and picks the template. Student-made text (what
their code printed, error messages, reprs of what it returned) is escaped for the format
and capped before it reaches a template, so it can never pose as a verdict.
"""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path
from typing import Any, Literal

import jinja2
import markupsafe

from menace_course.cache import cache_root
from menace_course.models import Kind, Outcome, SubmissionReport

Format = Literal["text", "markdown", "html"]
TEMPLATE_FOR: dict[str, str] = {
    "text": "report.txt.j2",
    "markdown": "report.md.j2",
    "html": "report.html.j2",
}
#: Longest piece of student-made text shown (Exercism's 500-character rule).
STUDENT_TEXT_CAP = 500
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def cap(text: str | None, limit: int = STUDENT_TEXT_CAP) -> str:
    """Make student-made text safe for a terminal and short: control characters shown as escapes."""
    if not text:
        return ""
    text = _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode(), text)
    if len(text) > limit:
        text = text[:limit] + f" … (truncated, {len(text) - limit} more characters)"
    return text


def cap_block(text: str | None, limit: int = STUDENT_TEXT_CAP) -> str:
    """Like :func:`cap`, but keeps line breaks (for what a student's code printed)."""
    if not text:
        return ""
    shown = "\n".join(cap(line, limit) for line in text[:limit].split("\n"))
    if len(text) > limit:
        shown += f"\n… (truncated, {len(text) - limit} more characters)"
    return shown


def _code_html(text: str) -> str:
    """Escape for HTML, then show `backticks` as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Keep compiled templates between runs (compiling them is a third of a check's rendering)."""
    folder = cache_root() / "templates"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder))


@functools.cache
def environment(templates: Path, format: Format) -> jinja2.Environment:
    """A jinja2 environment over the course's templates, with the filters they use.

    One per folder and format for the life of the process: a class's feedback reuses the
    compiled templates instead of loading them again for every student.
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        bytecode_cache=_bytecode_cache(),
        autoescape=format == "html",
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cap"] = cap
    env.filters["cap_block"] = cap_block
    env.filters["codehtml"] = lambda text: markupsafe.Markup(_code_html(str(text)))
    env.filters["indent_lines"] = lambda text, n=4: "\n".join(" " * n + ln for ln in str(text).splitlines())
    env.globals["hint_text"] = lambda hint_id: hint_text(env, hint_id)
    return env


def hint_text(env: jinja2.Environment, hint_id: str | None) -> str:
    """The words of a hint (``hints/<id>.md.j2``); empty when there is none."""
    if not hint_id:
        return ""
    return env.get_template(f"hints/{hint_id}.md.j2").render().strip()


def hint_ids(templates: Path) -> set[str]:
    """Every hint id the course has words for."""
    return {p.name.removesuffix(".md.j2") for p in (templates / "hints").glob("*.md.j2")}


def _view(report: SubmissionReport) -> dict[str, Any]:
    tests = list(report.tests)
    examples = [t for t in tests if t.kind is Kind.EXAMPLE]
    others = [t for t in tests if t.kind is not Kind.EXAMPLE]
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
        "Kind": Kind,
    }


def render(report: SubmissionReport, templates: Path, format: Format = "text") -> str:
    """The report in words, in one of the three formats."""
    env = environment(templates, format)
    return env.get_template(TEMPLATE_FOR[format]).render(**_view(report))


def render_many(reports: list[SubmissionReport], templates: Path, format: Format = "text") -> str:
    """Several reports (a file answering several challenges), one after another."""
    separator = "\n" if format != "html" else "\n<hr>\n"
    return separator.join(render(r, templates, format) for r in reports)
