"""Every vocabulary is one type in models.py, and the docs, templates and outputs follow it.

The words for a problem are one table, ``menace_course/wording.py``, keyed by ``Problem``:
a report's message, every feedback format and the browser take them from there.

A new status, outcome, kind, problem code or verdict added to ``menace_course/models.py``
makes one of these fail until docs/json-schema.md lists it and the feedback and the
class report have words for it.
"""

from __future__ import annotations

import ast
import enum
import re

import pytest

from menace_course import wording
from menace_course.checking.runner import MESSAGES
from menace_course.feedback import environment
from menace_course.grading.stats import WHAT_HAPPENED
from menace_course.models import Outcome, Problem, Status, TestKind, Verdict
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
        ("kind", TestKind),
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
    assert TEST_PROBLEMS <= set(MESSAGES)  # from wording's table (tests below)


def test_every_problem_has_its_sentence_in_the_one_wording_table():
    assert set(wording.SENTENCES) == set(Problem)
    assert all("%(fn)s" in s or s.startswith("not checked: ") for s in wording.SENTENCES.values())


@pytest.mark.parametrize("problem", sorted(Problem))
def test_the_feedback_and_the_report_word_a_problem_from_the_one_table(problem):
    env = environment(REPO / "feedback_templates", "text")
    words = env.from_string('{% import "words.j2" as w %}{{ w.problem(p, "f") }}').render(p=Problem(problem))
    assert words == wording.SENTENCES[Problem(problem)] % {"fn": "f"}
    assert MESSAGES[problem] == wording.subjectless(wording.sentence_id(problem))


def _problem_words() -> set[str]:
    """Every form of a problem's sentence: whole, without its subject, as a report keeps it."""
    words = set()
    for text in [*wording.SENTENCES.values(), wording.RAISED_UNKNOWN, wording.DID_NOT_PASS]:
        words |= {text, text.removeprefix("%(fn)s "), wording.subjectless(text)}
    return words


#: The class report is the instructor's, in English, with words of its own for what happened
#: while a file loaded ("timeout while loading"); everything else a problem is worded in is here.
STUDENT_PYTHON = [
    p for p in (REPO / "menace_course").rglob("*.py") if p.name != "wording.py" and "grading" not in p.parts
]


def test_no_python_string_words_a_problem_outside_the_table():
    words = _problem_words()
    found = []
    for path in STUDENT_PYTHON:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip() in words:
                found.append(f"{path.relative_to(REPO)}: {node.value!r}")
    assert found == []


def test_no_template_or_browser_script_words_a_problem_of_its_own():
    words = [w.removeprefix("%(fn)s ") for w in _problem_words()]
    templates = [
        *(REPO / "feedback_templates").rglob("*.j2"),
        *(REPO / "menace_course/service/templates").glob("*"),
    ]
    scripts = [*(REPO / "frontend/src").rglob("*.js"), *(REPO / "menace_course/service/assets").glob("*.js")]
    found = []
    for path in templates:
        text = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {w}" for w in words if re.search(r"\}\}\s*" + re.escape(w) + r"\b", text)]
    for path in scripts:
        text = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {w}" for w in words if re.search("[\"'`]" + re.escape(w) + "[\"'`]", text)]
    assert found == []


def test_a_problem_sentence_of_the_old_templates_would_be_found():
    # The guard above can fail: the words.j2 of before the table had its own sentence.
    old = '{%- if p == "recursion" -%}{{ fn }} kept calling itself and never stopped'
    assert any(re.search(r"\}\}\s*" + re.escape(w) + r"\b", old) for w in _problem_words())


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
