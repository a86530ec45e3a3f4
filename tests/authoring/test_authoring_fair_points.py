"""``menace validate`` keeps the points honest, for every challenge, a new one too.

* No points for nothing: a file that does nothing scores 0, one that copies the printed
  examples' answers at most a third.
* Hints fit the mistakes: a known wrong solution is shown only the hints of the tests its
  caught-by line names (and the challenge's rules).
* The README's ``>>>`` examples are what the reference gives.
* No file students receive (another challenge's starter, a step program) earns more than a
  third of a challenge: validate fails, naming it.
"""

from __future__ import annotations

import pytest

from menace_course import catalog
from menace_course.authoring.nothing import free_attempts, readme_examples
from menace_course.course import Course
from tests.support import REPO

pytestmark = pytest.mark.slow


def validate_json(menace, course, slug):
    ran = menace(
        "validate", slug, "--course", str(course), "--sandbox", "process", "--jobs", "2", "--format", "json"
    )
    return ran.code, ran.json()["challenges"][0]


def edit(path, old, new):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


def test_the_free_files_are_made_from_the_challenge_and_its_readme():
    challenge = catalog.load_challenge(Course(REPO), "count_boxes")
    assert [(e.args, e.expected) for e in readme_examples(challenge)] == [(("X",), [1, 12, 108, 183])]
    attempts = free_attempts(challenge)
    labels = [a.label for a in attempts]
    assert labels[:2] == ["gives back None", "gives back mark as it came"]
    assert "gives back the printed answers, else the printed answer [1, 12, 108, 183]" in labels
    assert {a.most for a in attempts if a.kind == "does_nothing"} == {0.0}
    namespace: dict = {}
    exec(attempts[-1].source, namespace)  # the file is plain Python: it answers the printed call
    assert namespace["count_boxes"]("X") == [1, 12, 108, 183] and namespace["count_boxes"]("O") == [
        1,
        12,
        108,
        183,
    ]


def test_a_test_that_passes_when_the_function_does_nothing_fails_validation(course, menace):
    (course / "hidden_tests" / "after_game" / "test_lazy.py").write_text(
        "from menace_course import expect_unchanged, hint\n\n\n"
        '@hint("copy_the_list")\n'
        "def test_leaves_its_list_alone(submission):\n"
        '    """The list it was given is the same after the call."""\n'
        "    submission.after_game([1, 2, 3, 4, 5, 6, 7, 8, 9], 6, 'win')\n"
        "    expect_unchanged()\n"
    )
    code, result = validate_json(menace, course, "after_game")
    assert code == 1
    lazy = [f for f in result["free"] if f["kind"] == "does_nothing"]
    assert [(f["label"], f["score"], f["passed_tests"], f["ok"]) for f in lazy] == [
        ("gives back None", 1.0, ["leaves_its_list_alone"], False),
        ("gives back beads as it came", 1.0, ["leaves_its_list_alone"], False),
    ]
    assert (
        "points for nothing: a after_game that gives back None scores 1/16, where it may score 0; "
        "it passes leaves_its_list_alone: a test that passes for a function that does nothing must "
        "also check the value it gives back"
    ) in result["problems"]


def test_a_challenge_whose_points_are_mostly_in_its_examples_fails_validation(course, menace):
    assert menace("new", "bead_total", "--course", str(course)).code == 0
    toml = course / "challenges" / "bead_total" / "challenge.toml"
    toml.write_text(
        toml.read_text() + "".join(f"\n[[examples]]\nargs = [{n}]\nexpected = {2 * n}\n" for n in (5, 8))
    )
    code, result = validate_json(menace, course, "bead_total")
    assert code == 1
    printed = [f for f in result["free"] if f["kind"] == "examples_only"]
    assert printed and all(f["score"] == 3.0 and f["max_score"] == 5.0 and not f["ok"] for f in printed)
    assert any(
        p.startswith(
            "points for nothing: a bead_total that gives back the printed answers, else None scores 3/5, "
            "where it may score at most 1.67 (a third)"
        )
        for p in result["problems"]
    )


def test_a_new_challenge_gives_no_points_for_nothing(course, menace):
    assert menace("new", "bead_total", "--course", str(course)).code == 0
    code, result = validate_json(menace, course, "bead_total")
    assert code == 0, result["problems"]
    assert result["free"] and all(f["ok"] for f in result["free"])


def test_a_readme_example_that_disagrees_with_the_reference_fails(course, menace):
    edit(
        course / "challenges" / "after_game" / "README.md",
        "[3, 4, 0, 0, 4, 0, 0, 0, 0]",
        "[2, 4, 0, 0, 4, 0, 0, 0, 0]",
    )
    code, result = validate_json(menace, course, "after_game")
    assert code == 1 and not result["examples_agree"]
    assert (
        "challenges/after_game/README.md: README example 3: "
        "after_game([4, 4, 0, 0, 4, 0, 0, 0, 0], 0, 'loss') gives [3, 4, 0, 0, 4, 0, 0, 0, 0] "
        "in the reference, but the README prints [2, 4, 0, 0, 4, 0, 0, 0, 0]"
    ) in result["problems"]


def test_a_hint_shown_for_another_mistake_fails_and_names_the_test(course, menace):
    # win_adds_one.py is caught by the win tests; as if the win test also checked the draw rule
    # without a hint of its own, draw_changes_nothing.py would be told about wins.
    edit(
        course / "hidden_tests" / "after_game" / "test_after_game.py",
        '    check(submission, [0, 1, 0, 1, 0, 1, 0, 1, 0], 7, "win")\n',
        '    check(submission, [0, 1, 0, 1, 0, 1, 0, 1, 0], 7, "win")\n'
        '    check(submission, [0, 1, 0, 1, 0, 1, 0, 1, 0], 7, "draw", hint="win_adds_three")\n',
    )
    code, result = validate_json(menace, course, "after_game")
    assert code == 1
    entry = next(w for w in result["wrong"] if w["file"] == "draw_changes_nothing.py")
    assert entry["caught"] and not entry["ok"]
    assert entry["stray_hints"] == [["win_on_a_side_square", "win_adds_three"]]
    assert (
        "challenges/after_game/wrong/draw_changes_nothing.py is shown hints about other mistakes: "
        "'win_adds_three' by win_on_a_side_square. A test should check in parts, each with the hint "
        "of what it checks; if a hint does fit this mistake, name its test in the file's caught-by line"
    ) in result["problems"]


def test_a_file_students_receive_that_earns_over_a_third_fails_the_challenge(course, menace):
    reference = (course / "reference" / "after_game.py").read_text()
    starter = course / "challenges" / "count_boxes" / "starter.py"
    starter.write_text(starter.read_text() + "\n\n" + reference.split('if __name__ == "__main__":')[0])
    code, result = validate_json(menace, course, "after_game")
    assert code == 1
    passing = {p["file"]: p["passes"] for p in result["public_passing"]}
    assert passing == {"the count_boxes starter (menace start count_boxes)": True}
    problems = [p for p in result["problems"] if p.startswith("a file students receive")]
    assert len(problems) == 1
    assert "the count_boxes starter (menace start count_boxes) scores" in problems[0]
    text = menace("validate", "after_game", "--course", str(course), "--sandbox", "process").out
    assert "the count_boxes starter (menace start count_boxes): passes every check" in text
    assert "all 1 challenge(s) validate" not in text
