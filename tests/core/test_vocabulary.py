"""Every vocabulary is one type in models.py, and the docs, templates and outputs follow it.

A new status, outcome, kind, problem code or verdict added to ``menace_course/models.py``
makes one of these fail until docs/json-schema.md lists it and the feedback and the
class report have words for it.
"""

from __future__ import annotations

import enum
import re

import pytest

from menace_course.checking.runner import MESSAGES
from menace_course.feedback import environment
from menace_course.grading.stats import WHAT_HAPPENED
from menace_course.models import Kind, Outcome, Problem, Status, Verdict
from tests.support import REPO

DOC = (REPO / "docs" / "json-schema.md").read_text(encoding="utf-8")


def documented(name: str) -> set[str]:
    """The values docs/json-schema.md's Vocabularies section lists for ``name``."""
    line = next(ln for ln in DOC.splitlines() if ln.startswith(f"- `{name}` ("))
    values = line.split(":", 1)[1]
    values = re.sub(r"\([^)]*\)", "", values)  # drop the explanations in brackets
    return set(re.findall(r"`([a-z_]+)`", values))


@pytest.mark.parametrize(
    ("name", "vocabulary"),
    [
        ("status", Status),
        ("kind", Kind),
        ("outcome", Outcome),
        ("detail.problem", Problem),
        ("grading.status", Verdict),
    ],
)
def test_the_json_schema_doc_lists_exactly_the_values_of_each_type(name, vocabulary: type[enum.StrEnum]):
    assert documented(name) == {v.value for v in vocabulary}


#: Problems a test (not the loading of a file) can have: each needs a message and words.
TEST_PROBLEMS = set(Problem) - {Problem.SYNTAX, Problem.INPUT, Problem.EXIT, Problem.IMPORT, Problem.NOTHING}


def test_every_problem_a_test_can_have_has_a_message():
    assert TEST_PROBLEMS <= set(MESSAGES)


@pytest.mark.parametrize("problem", sorted(TEST_PROBLEMS))
def test_every_problem_a_test_can_have_has_its_words_in_the_templates(problem):
    env = environment(REPO / "feedback_templates", "text")
    words = env.from_string('{% import "words.j2" as w %}{{ w.problem(p, "f") }}').render(p=Problem(problem))
    assert words and words != f"f: {problem}", f"words.j2 has no sentence for {problem!r}"


def test_every_verdict_but_passed_and_failed_has_words_in_the_class_report():
    assert set(Verdict) - {Verdict.PASSED, Verdict.FAILED} <= set(WHAT_HAPPENED)


def test_statuses_that_are_verdicts_keep_their_names():
    # A report's status becomes the record's verdict as it is (grading.record.verdict).
    assert {s.value for s in Status} - {"checked"} <= {v.value for v in Verdict}


def test_the_templates_name_only_problem_codes_that_exist():
    # A code the type does not have (a renamed or removed one) would never match in a template.
    named = set()
    for path in (REPO / "feedback_templates").glob("*.j2"):
        text = path.read_text(encoding="utf-8")
        named |= set(re.findall(r'\bp == "([a-z_]+)"', text))
        for group in re.findall(r"(?:p|d\.problem) in \(([^)]*)\)", text):
            named |= set(re.findall(r'"([a-z_]+)"', group))
        named |= set(re.findall(r'd\.problem [!=]= "([a-z_]+)"', text))
    assert named and named <= {p.value for p in Problem}, sorted(named - {p.value for p in Problem})


def test_a_students_line_in_a_traceback_is_one_type_from_the_child_to_the_report():
    from menace_course.sandbox import outcomes

    assert not hasattr(outcomes, "Frame"), "one frame type: models.Line"
    assert "Line" in str(outcomes.StudentException.__annotations__["frames"])


def test_the_templates_name_only_statuses_outcomes_and_verdicts_that_exist():
    # Most templates compare with the types themselves (Outcome.PASSED); these are the spelled-out ones.
    patterns = {
        r'\bstatus [!=]= "([a-z_]+)"': {s.value for s in Status} | {v.value for v in Verdict},
        r'statuses\["([a-z_]+)"\]': {v.value for v in Verdict},
        r'"outcome", "equalto", "([a-z_]+)"': {o.value for o in Outcome},
        r'outcome [!=]= "([a-z_]+)"': {o.value for o in Outcome},
    }
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / "feedback_templates").rglob("*.j2")):
        text = path.read_text(encoding="utf-8")
        for pattern, allowed in patterns.items():
            for name in re.findall(pattern, text):
                found.setdefault(pattern, set()).add(name)
                assert name in allowed, f"{path.name} names {name!r}, which no type has"
    assert len(found) >= 3, found  # the patterns still find what the templates spell out
