"""The text report says what failed and where; the JSON and the text agree on the verdict."""

from __future__ import annotations

from menace_course.authoring.checks import WrongResult
from menace_course.authoring.killing import MutantResult
from menace_course.authoring.mutants import generate_mutants
from menace_course.authoring.report import render_text
from menace_course.authoring.results import ChallengeResult, CourseResult, MutantScore

CODE = "def f(beads, i):\n    new = list(beads)\n    new[i] = max(0, new[i] - 1)\n    return new\n"


def score(killed_ids=(), equivalent=None, threshold=0.9):
    mutants = generate_mutants(CODE)
    verdicts = [
        MutantResult(m.id, m.id in killed_ids, "example_1" if m.id in killed_ids else None) for m in mutants
    ]
    return mutants, MutantScore.from_verdicts(mutants, verdicts, equivalent or {}, threshold)


def result(mutants, problems=(), wrong=()):
    return ChallengeResult(
        slug="f_box",
        title="A box",
        reference_passes=True,
        reference_failures=(),
        starter_fails=True,
        examples_agree=True,
        hints_missing=(),
        hidden_tests=3,
        wrong=tuple(wrong),
        free=(),
        public_passing=(),
        deterministic=True,
        seconds=0.5,
        budget_seconds=20.0,
        mutants=mutants,
        problems=tuple(problems),
    )


def test_the_score_leaves_out_equivalent_mutants_and_lists_survivors():
    mutants, _ = score()
    first, *rest = [m.id for m in mutants]
    _, counted = score(killed_ids=rest[1:], equivalent={first: "it cannot be told apart"})
    assert counted.total == len(mutants) - 1
    assert counted.killed == len(rest) - 1
    assert [s.id for s in counted.survivors] == [rest[0]]
    assert counted.equivalent[0].reason == "it cannot be told apart" and not counted.equivalent[0].killed
    assert dict(counted.killed_by) == {"example_1": counted.killed}


def test_survivors_and_problems_are_shown_with_their_code_unmangled():
    _, scored = score(killed_ids=())
    text = render_text(CourseResult((result(scored, problems=["the tests kill 0 of 9 [validate]"]),)))
    assert "Surviving mutants" in text
    assert "`max(0, new[i] - 1)` → `new[i] - 1`" in text  # brackets are code, not markup
    assert "✗ the tests kill 0 of 9 [validate]" in text
    assert "✗ 1 of 1 challenge(s) do not validate: f_box" in text
    assert all(line == line.rstrip() for line in text.splitlines())


def test_a_good_challenge_reads_as_all_ticks():
    _, scored = score(killed_ids=[m.id for m in generate_mutants(CODE)])
    wrong = WrongResult("no_floor.py", ("example_1",), ("example_1",), (), ())
    good = result(scored, wrong=[wrong])
    assert good.ok and good.wrong_caught
    text = render_text(CourseResult((good,)))
    assert "✗" not in text
    assert "1 of 1" in text  # wrong solutions caught
    assert "✓ all 1 challenge(s) validate" in text
    data = CourseResult((good,)).to_dict()
    assert data["ok"] is True and data["challenges"][0]["mutants"]["score"] == 1.0


def test_mutants_not_run_are_a_failure():
    not_run = result(None, problems=["mutants were not run: the reference must pass first"])
    text = render_text(CourseResult((not_run,)))
    assert "mutants are killed" in text and "not run" in text
    assert CourseResult((result(None, problems=["x"]),)).to_dict()["challenges"][0]["mutants"] is None
