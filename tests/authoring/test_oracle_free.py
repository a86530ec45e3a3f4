"""The hidden tests are oracle-free: the calls they make never depend on whether an answer was right.

A submission runs in one child for the whole check and sees every call the tests make.
If a test called again only after a wrong answer, a file could notice the repeat, learn
that its guess was wrong, and switch to another guess for the tests still to come. These
files do exactly that: they answer with a known wrong solution until a call repeats the
one just before it, and with the reference from then on. Such a file must earn no more
than the wrong solution it starts from, up to the first repeat that the tests make for
every file alike (the reference's run makes it too): a repeat that tells nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from menace_course import catalog
from menace_course.authoring.killing import Judge
from menace_course.authoring.oracle import Trace, trace_calls
from menace_course.authoring.validate import _check_oracle_free, _Findings
from menace_course.checking.suite import load_suite
from menace_course.course import Course
from tests.check.test_challenges import report_of

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.bwrap
SLUGS = ("after_game", "count_boxes", "name", "new_box", "opening_box", "play_game")

#: The body of the switching file: ``WRONG`` and ``RIGHT`` are the two modules' texts.
SWITCHER = """
import copy

right, wrong = {{}}, {{}}
exec(RIGHT, right)
exec(WRONG, wrong)
state = {{"last": None, "switched": False}}


def {function}(*args):
    seen = repr(args)
    if seen == state["last"]:  # the tests asked again: the answer before was wrong
        state["switched"] = True
    state["last"] = seen
    chosen = right if state["switched"] else wrong
    return chosen["{function}"](*args)
"""


#: The same, switching at a call counted in advance: the ``after``-th call and later are the reference's.
COUNTER = SWITCHER.replace(
    'if seen == state["last"]:  # the tests asked again: the answer before was wrong',
    'state["calls"] = state.get("calls", 0) + 1\n    if state["calls"] >= {after}:',
)


def switcher(slug: str, wrong: str, tmp_path: Path, after: int | None = None) -> Path:
    """A file that answers as ``wrong`` until a call repeats the one before, then as the reference.

    With ``after``: until its ``after``-th call, whatever the calls are.
    """
    right_text = (REPO / "reference" / f"{slug}.py").read_text(encoding="utf-8")
    wrong_text = (REPO / "challenges" / slug / "wrong" / f"{wrong}.py").read_text(encoding="utf-8")
    body = f"RIGHT = {right_text!r}\nWRONG = {wrong_text!r}\n" + (
        SWITCHER.format(function=slug) if after is None else COUNTER.format(function=slug, after=after)
    )
    path = tmp_path / f"{slug}{after or ''}.py"
    path.write_text(body.replace('__name__ == "__main__"', "False"), encoding="utf-8")
    return path


def trace_of_reference(slug: str) -> Trace:
    """The calls each test makes into the reference."""
    trace = trace_calls(REPO / "reference" / f"{slug}.py", load_suite(Course(REPO), slug), "bwrap")
    assert trace is not None
    return trace


def first_test_that_repeats_for_everyone(slug: str) -> str | None:
    """The first test where, for the reference, a call repeats the call just before it."""
    previous = None
    for name, calls in trace_of_reference(slug):
        for call in calls:
            if call == previous:
                return name
            previous = call
    return None


@pytest.mark.parametrize(
    ("slug", "wrong"),
    [
        ("play_game", "rewards_swapped"),
        ("play_game", "only_the_last_bead_learns"),
        ("new_box", "four_beads_always"),
    ],
)
def test_a_file_that_switches_its_guess_when_a_call_repeats_gains_nothing(slug, wrong, tmp_path):
    _, plain = report_of(REPO / "challenges" / slug / "wrong" / f"{wrong}.py", slug)
    _, switching = report_of(switcher(slug, wrong, tmp_path), slug)
    assert switching["status"] == "checked", switching["status"]
    names = [t["name"] for t in plain["tests"]]
    told = first_test_that_repeats_for_everyone(slug)
    until = names.index(told) if told in names else len(names)
    gained = [
        t["name"]
        for t, p in zip(switching["tests"][:until], plain["tests"][:until], strict=True)
        if t["outcome"] == "passed" and p["outcome"] != "passed"
    ]
    assert gained == []
    if until == 0:  # the first test repeats a call for every file: switching there is no news
        first_calls = dict(trace_of_reference(slug))[names[0]]
        repeat = next(i for i in range(1, len(first_calls)) if first_calls[i] == first_calls[i - 1])
        _, counted = report_of(switcher(slug, wrong, tmp_path, after=repeat + 1), slug)
        assert switching["score"] == counted["score"]


# -- menace validate refuses a test that branches on the answer ---------------------------------

BRANCHING = '''
from menace_course import expect_equal, hint, reference

reference_bead_total = reference("bead_total")


@hint("bead_total_rules")
def test_asks_again_after_a_wrong_answer(submission):
    """Twice ten is twenty."""
    got = submission.bead_total(10)
    if got != reference_bead_total(10):
        submission.bead_total(10)  # a second look, only after a wrong answer
    expect_equal(got, 20)
'''


def validate_problems(menace, course):
    ran = menace(
        "validate",
        "bead_total",
        "--course",
        str(course),
        "--sandbox",
        "process",
        "--jobs",
        "1",
        "--format",
        "json",
    )
    return ran.code, ran.json()["challenges"][0]["problems"]


@pytest.mark.slow
def test_validate_fails_a_challenge_whose_test_calls_again_after_a_wrong_answer(course, menace):
    assert menace("new", "bead_total", "--course", str(course)).code == 0
    (course / "hidden_tests" / "bead_total" / "test_branching.py").write_text(BRANCHING, encoding="utf-8")
    code, problems = validate_problems(menace, course)
    assert code == 1
    branches = [p for p in problems if "branches on the answer" in p]
    assert len(branches) == 1, problems
    assert branches[0].startswith("test asks_again_after_a_wrong_answer branches on the answer")
    assert "for challenges/bead_total/starter.py its call 2 is bead_total(10)" in branches[0]


@pytest.mark.slow
def test_validate_passes_a_new_challenge_whose_tests_make_the_same_calls(course, menace):
    assert menace("new", "bead_total", "--course", str(course)).code == 0
    code, problems = validate_problems(menace, course)
    assert (code, problems) == (0, [])


@pytest.mark.parametrize("slug", SLUGS)
def test_validate_finds_no_test_of_the_six_challenges_that_branches(slug):
    course = Course(REPO)
    found = _Findings(catalog.load_challenge(course, slug))
    with Judge(course, "bwrap", jobs=2) as judge:
        _check_oracle_free(course, found, judge, REPO / "reference" / f"{slug}.py")
    assert found.problems == []
