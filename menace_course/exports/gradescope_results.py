"""A :class:`~menace_course.models.SubmissionReport` as Gradescope's ``results.json``.

Gradescope's autograder specification (``docs/specs.md`` of gradescope/autograder_samples)
reads a JSON object with a top-level ``score``, ``execution_time``, ``output`` and
``tests``; each test has a ``name``, ``score``, ``max_score``, ``status`` (``passed`` or
``failed``), ``output`` and ``visibility``. ``gradescope_results.schema.json`` beside this
file is that specification as a JSON Schema; the project's tests validate against it.

What a student may see follows the rest of the course:

* a visible example's output shows the call, what was expected and what came back;
* a hidden test's output shows its name and, when it failed, what kind of problem it was
  (a builtin exception kind at most), its hint and what to try, never its inputs or
  expected values, and the whole test has the visibility the instructor chose
  (``after_published`` by default, or ``hidden``);
* the top-level output is the usual feedback, rendered from the course's templates, and
  when hidden tests are not shown yet it leaves their results out as well.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal

import jinja2

from menace_course import __version__
from menace_course.feedback import environment, render, shown_test
from menace_course.models import Outcome, SubmissionReport, TestResult
from menace_course.safe_text import printable
from menace_course.student_view import shown_seconds, student_test, student_view

#: Gradescope's four visibility values, from most to least open.
Visibility = Literal["visible", "after_published", "after_due_date", "hidden"]
VISIBILITIES: tuple[Visibility, ...] = ("visible", "after_published", "after_due_date", "hidden")
#: The schema of what :func:`results_json` returns (written from Gradescope's spec).
SCHEMA = Path(__file__).with_name("gradescope_results.schema.json")

#: Said at the top when hidden tests' results are held back (a plain fact, not a verdict).
HELD_BACK = "{n} hidden checks have run; their results appear when your instructor publishes them."

# One test's output. Sentences come from the course's words.j2; what is added here is
# only the labels of the values shown.
_TEST_TEMPLATE = """\
{% import "words.j2" as words %}
{% set d = t.detail %}
{% if t.outcome == Outcome.PASSED %}
✓ {{ t.title }}
{% elif t.outcome == Outcome.SKIPPED %}
– {{ t.title }}: {{ t.message }}
{% elif not t.is_visible %}
✗ {{ t.title }}: {{ words.check_problem(t, fn) }}
{% if t.hint %}
hint: {{ hint_text(t.hint) }}
{% endif %}
{% set advice = words.hidden_advice(t, fn) %}
{% if advice %}
{{ advice }}
{% endif %}
{% else %}
✗ {{ words.problem(d.problem if d else "different", fn) }}
{% if d and d.call %}
    {{ d.call }}
{% endif %}
{% if d and d.expected is not none and d.problem != "changed_input" %}
    expected: {{ d.expected }}
    got:      {{ d.got }}{% if d.problem == "wrong_type" %}   ({{ d.got_type }}){% endif %}

{% if d.first_difference %}
    first difference: {{ d.first_difference }}
{% endif %}
{% endif %}
{% if d and d.problem == "changed_input" %}
    {{ d.note }}: it was {{ d.expected }}
    and afterwards:    {{ d.argument_after }}
{% endif %}
{% if d and d.error_type %}
    {{ d.error_type }}{% if d.error_message %}: {{ d.error_message | cap }}{% endif %}

{% for line in d.traceback %}
      line {{ line.line }}, in {{ line.function }}: {{ line.code | cap }}
{% endfor %}
{% endif %}
{% if d and d.printed %}
    printed:
{{ d.printed | cap_block | indent_lines(6) }}
{% endif %}
{% if t.hint %}
hint: {{ hint_text(t.hint) }}
{% endif %}
{% set advice = words.advice(d.problem if d else "") %}
{% if advice %}
{{ advice }}
{% endif %}
{% endif %}
"""


def output_of_test(test: TestResult, function: str, env: jinja2.Environment) -> str:
    """The text Gradescope shows under one test (name and hint only, for a hidden test)."""
    template = env.from_string(_TEST_TEMPLATE)
    return template.render(t=shown_test(student_test(test)), fn=function, Outcome=Outcome).strip() + "\n"


def _test_entry(
    number: int, test: TestResult, report: SubmissionReport, env: jinja2.Environment, hidden: Visibility
) -> dict[str, Any]:
    return {
        "name": test.title,
        "number": str(number),
        "score": test.points,
        "max_score": test.max_points,
        "status": "passed" if test.outcome is Outcome.PASSED else "failed",
        "output": output_of_test(test, report.function, env),
        "output_format": "text",
        "tags": [test.kind.value],
        "visibility": "visible" if test.is_visible else hidden,
    }


def shown_now(report: SubmissionReport, hidden: Visibility) -> SubmissionReport:
    """The report as a student may read it before hidden tests are shown.

    With ``hidden == "visible"`` that is the whole report; otherwise the hidden tests
    are taken out, and a notice says that they ran and how many. (They are not
    ``hidden_not_run``: the feedback would then say that they did not run.)
    """
    if hidden == "visible":
        return report
    shown = tuple(t for t in report.tests if t.is_visible)
    held = [t for t in report.tests if not t.is_visible]
    return dataclasses.replace(
        report,
        tests=shown,
        notices=(*report.notices, HELD_BACK.format(n=len(held))) if held else report.notices,
        score=sum(t.points for t in shown),
        max_score=sum(t.max_points for t in shown),
    )


def results_json(
    report: SubmissionReport,
    templates: Path,
    *,
    hidden: Visibility = "after_published",
    execution_time: float | None = None,
) -> dict[str, Any]:
    """Gradescope's ``results.json`` for one checked submission: the student's view of it.

    Students read ``results.json`` (its output and its tests' outputs, the execution time),
    so it is made from :func:`~menace_course.student_view.student_view` only; the instructor
    has the autograder's standard output for the rest.
    """
    report = student_view(report)
    env = environment(templates, "text")
    tests = [_test_entry(i, t, report, env, hidden) for i, t in enumerate(report.tests, start=1)]
    return {
        "score": report.score,
        "execution_time": report.seconds if execution_time is None else shown_seconds(execution_time),
        "output": render(shown_now(report, hidden), templates, "markdown"),
        "output_format": "md",
        "test_output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "menace": {
                "version": report.version,
                "hypothesis_version": report.hypothesis_version,
                "suite_hash": report.suite_hash,
                "status": report.status.value,
                "sandbox": report.sandbox,
                "file": printable(report.file),
                "challenge": report.challenge,
            }
        },
    }


def failure_json(message: str, *, execution_time: float = 0.0) -> dict[str, Any]:
    """A score-0 ``results.json`` for when no grading could happen (with the reason)."""
    return {
        "score": 0.0,
        "execution_time": round(execution_time, 3),
        "output": message,
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [],
        "extra_data": {"menace": {"version": __version__, "status": "not_graded"}},
    }
