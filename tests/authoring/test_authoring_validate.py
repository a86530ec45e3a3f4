"""``menace validate`` passes a good challenge and fails, saying what and where, when its tests are not good.

Each test changes one thing in a private copy of the course and validates it with the
plain process sandbox (one test runs bubblewrap): after_game for what is about its own
tests and mutants, and a challenge fresh from ``menace new`` (6 mutants, quick) for the
checks every challenge gets.
"""

from __future__ import annotations

import re
import shutil

import pytest

pytestmark = pytest.mark.slow

NO_FLOOR = """
REWARD = {"win": 3, "draw": 1, "loss": -1}


def after_game(beads, square, result):
    new = list(beads)
    new[square] = new[square] + REWARD[result]   # no max(0, ...): beads can go below zero
    return new
"""


def validate(menace, course, *extra, slug="after_game"):
    return menace("validate", slug, "--course", str(course), "--sandbox", "process", "--jobs", "1", *extra)


def validate_json(menace, course, *extra, slug="after_game"):
    ran = validate(menace, course, "--format", "json", *extra, slug=slug)
    return ran.code, ran.json()["challenges"][0]


@pytest.fixture
def new(course, menace):
    """A new challenge, bead_total, as ``menace new`` writes it: it validates as it is."""
    assert menace("new", "bead_total", "--course", str(course)).code == 0
    return course / "challenges" / "bead_total"


def validate_new(menace, course):
    return validate_json(menace, course, slug="bead_total")


def edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_after_game_validates_and_the_json_has_every_field(course, menace):
    code, result = validate_json(menace, course)
    assert code == 0
    for field in (
        "slug",
        "ok",
        "reference_passes",
        "starter_fails",
        "examples_agree",
        "hints_missing",
        "hidden_tests",
        "wrong_caught",
        "wrong",
        "deterministic",
        "seconds",
        "budget_seconds",
        "mutants",
        "problems",
    ):
        assert field in result, field
    assert result["slug"] == "after_game" and result["ok"] and result["problems"] == []
    mutants = result["mutants"]
    assert set(mutants) >= {"killed", "total", "survivors", "score", "threshold", "equivalent", "killed_by"}
    assert mutants["killed"] / mutants["total"] >= 0.9
    assert len(mutants["survivors"]) == mutants["total"] - mutants["killed"]
    for survivor in mutants["survivors"]:
        assert re.fullmatch(r"[a-z_0-9]+@\d+:\d+(#\d+)?", survivor["id"])
        assert survivor["description"]
    assert sum(mutants["killed_by"].values()) == mutants["killed"]
    assert all(w["caught"] and w["ok"] for w in result["wrong"]) and result["wrong"]


def test_a_reference_that_lets_beads_go_below_zero_fails(course, menace):
    (course / "reference" / "after_game.py").write_text(NO_FLOOR)
    code, result = validate_json(menace, course)
    assert code == 1
    assert not result["ok"] and not result["reference_passes"]
    assert "never_a_negative_count" in result["reference_failures"]
    assert result["mutants"] is None
    text = validate(menace, course).out
    assert "reference/after_game.py fails" in text
    assert "never_a_negative_count" in text


def keep_each_answer(tests, kept_in):
    """Make after_game's first property test append each answer it checked to ``kept_in``."""
    edit(
        tests,
        '    check(submission, beads, square, result, hint="after_game_rules")\n\n\n@hint("floor_at_zero")',
        f'    {kept_in}.append(check(submission, beads, square, result, hint="after_game_rules"))\n\n\n'
        '@hint("floor_at_zero")',
    )


def test_a_test_that_keeps_something_when_its_module_says_it_shares_no_state_fails(course, menace):
    tests = course / "hidden_tests" / "after_game" / "test_after_game.py"
    edit(tests, "TESTS_SHARE_NO_STATE = True\n", "TESTS_SHARE_NO_STATE = True\nSEEN = []\n")
    keep_each_answer(tests, "SEEN")
    code, result = validate_json(menace, course)
    assert code == 1 and not result["ok"]
    assert any(
        p.startswith(
            "test agrees_with_michies_rules_on_any_box changed SEEN when checking reference/after_game.py"
        )
        and "TESTS_SHARE_NO_STATE" in p
        for p in result["problems"]
    )


#: A test that reads what an earlier test kept, in a cache (whose contents validate cannot see).
DEPENDS_ON_THE_TEST_BEFORE = """

@functools.cache
def answers_of(submission):
    return []
"""


def test_a_test_that_depends_on_another_when_its_module_says_they_share_no_state_fails(course, menace):
    tests = course / "hidden_tests" / "after_game" / "test_after_game.py"
    edit(
        tests,
        "from hypothesis import example, given\n",
        "import functools\n\nfrom hypothesis import example, given\n",
    )
    edit(tests, "TESTS_SHARE_NO_STATE = True\n", "TESTS_SHARE_NO_STATE = True\n" + DEPENDS_ON_THE_TEST_BEFORE)
    keep_each_answer(tests, "answers_of(submission)")
    edit(
        tests,
        '    """No loss takes a count below 0, whatever the box."""\n',
        '    """No loss takes a count below 0, whatever the box."""\n'
        '    expect(len(answers_of(submission)) > 0, "the test before did not run")\n',
    )
    code, result = validate_json(menace, course)
    assert code == 1 and not result["ok"]
    assert any(
        p.startswith("reference/after_game.py gets other verdicts on never_a_negative_count when the tests")
        for p in result["problems"]
    )
    # without the promise, every test's code runs: the reference passes, and nothing is said of state
    edit(tests, "TESTS_SHARE_NO_STATE = True\n", "")
    code, result = validate_json(menace, course)
    assert result["reference_passes"]
    assert not any("other verdicts" in p or "TESTS_SHARE_NO_STATE" in p for p in result["problems"])


def test_deleting_the_hidden_tests_fails(course, menace):
    shutil.rmtree(course / "hidden_tests" / "after_game")
    code, result = validate_json(menace, course)
    assert code == 1
    assert result["hidden_tests"] == 0
    assert any("no hidden tests: write hidden_tests/after_game/" in p for p in result["problems"])
    # the three examples alone let many mutants and wrong solutions through
    assert not result["mutants"]["passes"] and result["mutants"]["survivors"]
    assert not result["wrong_caught"]


def test_a_wrong_solution_that_passes_is_named(course, menace, new):
    shutil.copy(course / "reference" / "bead_total.py", new / "wrong" / "right.py")
    code, result = validate_new(menace, course)
    assert code == 1 and not result["wrong_caught"]
    assert "challenges/bead_total/wrong/right.py passes every test" in result["problems"]


def test_a_caught_by_line_naming_a_test_that_lets_it_pass_fails(course, menace, new):
    (new / "wrong" / "negatives.py").write_text(
        "# caught-by: example_1, test_twice_a_negative_number, no_such_test\n"
        "def bead_total(n):\n    return 2 * n if n >= 0 else n\n"
    )
    code, result = validate_new(menace, course)
    assert code == 1
    entry = next(w for w in result["wrong"] if w["file"] == "negatives.py")
    assert entry["caught"] and not entry["ok"]
    assert entry["declared"] == ["example_1", "twice_a_negative_number", "no_such_test"]
    assert entry["not_caught_by"] == ["example_1"]
    assert entry["unknown"] == ["no_such_test"]
    named = "challenges/bead_total/wrong/negatives.py passes example_1, which its caught-by line names"
    assert named in result["problems"]


def test_an_example_that_disagrees_with_the_reference_fails(course, menace, new):
    edit(new / "challenge.toml", "expected = 6", "expected = 7")
    code, result = validate_new(menace, course)
    assert code == 1 and not result["examples_agree"]
    disagreement = "example 1: bead_total(3) gives 6 in the reference, but challenge.toml expects 7"
    assert f"challenge.toml {disagreement}" in result["problems"]


def test_a_hint_without_a_template_fails(course, menace, new):
    (course / "feedback_templates" / "hints" / "bead_total_rules.md.j2").unlink()
    code, result = validate_new(menace, course)
    assert code == 1
    assert result["hints_missing"] == ["bead_total_rules"]


def test_a_starter_that_passes_fails(course, menace, new):
    shutil.copy(course / "reference" / "bead_total.py", new / "starter.py")
    code, result = validate_new(menace, course)
    assert code == 1 and not result["starter_fails"]
    assert "the starter challenges/bead_total/starter.py passes every test" in result["problems"]


def test_a_suite_that_changes_its_mind_is_not_deterministic(course, menace, new):
    (course / "hidden_tests" / "bead_total" / "test_flaky.py").write_text(
        "_runs = []\n\n\ndef test_every_other_time(submission):\n"
        '    """Passes on odd runs only."""\n    _runs.append(1)\n    assert len(_runs) % 2 == 1\n'
    )
    code, result = validate_new(menace, course)
    assert code == 1 and not result["deterministic"]
    assert "the suite is not deterministic: every_other_time changed" in result["problems"]


def test_a_suite_over_its_time_budget_fails(course, menace, new):
    toml = new / "challenge.toml"
    toml.write_text(toml.read_text() + "\n[limits]\nbudget_seconds = 0.001\n")
    code, result = validate_new(menace, course)
    assert code == 1
    assert any("over its budget of 0.001 s" in p for p in result["problems"])


def test_hidden_tests_that_do_not_import_are_reported(course, menace, new):
    (course / "hidden_tests" / "bead_total" / "test_bead_total.py").write_text("import no_such_module\n")
    code, result = validate_new(menace, course)
    assert code == 1
    assert any("the hidden tests do not import: ModuleNotFoundError" in p for p in result["problems"])


def set_validate_keys(toml, keys: str) -> None:
    """Put ``keys`` in the challenge's [validate] table, replacing its equivalent mutants."""
    text = re.sub(r"equivalent_mutants = \[.*?\]\n", "", toml.read_text(), flags=re.S)
    if "[validate]\n" in text:
        text = text.replace("[validate]\n", f"[validate]\n{keys}\n", 1)
    else:
        text += f"\n[validate]\n{keys}\n"
    toml.write_text(text)


def test_equivalent_mutants_are_not_counted_and_need_a_reason(course, menace):
    toml = course / "challenges" / "after_game" / "challenge.toml"
    set_validate_keys(toml, "")  # start from no equivalents at all
    code, result = validate_json(menace, course)
    survivors = [s["id"] for s in result["mutants"]["survivors"]]
    assert survivors
    entries = ", ".join(f'"{s}: the challenge promises one of the three words"' for s in survivors)
    set_validate_keys(toml, f"equivalent_mutants = [{entries}]")
    code, after = validate_json(menace, course)
    assert code == 0
    assert after["mutants"]["total"] == result["mutants"]["total"] - len(survivors)
    assert after["mutants"]["survivors"] == [] and after["mutants"]["score"] == 1.0
    assert [e["id"] for e in after["mutants"]["equivalent"]] == survivors
    broken_entries = 'equivalent_mutants = ["no reason", "gone@1:1: stale", '
    toml.write_text(toml.read_text().replace("equivalent_mutants = [", broken_entries))
    code, broken = validate_json(menace, course)
    assert code == 1
    assert any("'no reason' must read" in p for p in broken["problems"])
    assert any("names gone@1:1, which is no mutant" in p for p in broken["problems"])


def test_a_threshold_in_the_metadata_is_used(course, menace):
    toml = course / "challenges" / "after_game" / "challenge.toml"
    set_validate_keys(toml, "mutant_threshold = 1.0")  # and no equivalents: 2 mutants survive
    ran = validate(menace, course)
    assert ran.code == 1
    assert "Surviving mutants" in ran.out and "below the threshold of 100%" in ran.out
    assert "✗ 1 of 1 challenge(s) do not validate: after_game" in ran.out


def test_an_unknown_challenge_exits_2(course, menace):
    ran = menace("validate", "after_gam", "--course", str(course))
    assert ran.code == 2 and "did you mean 'after_game'" in ran.err


def test_judging_in_two_worker_processes_gives_the_same_verdicts(course, menace):
    one = validate_json(menace, course)[1]["mutants"]
    two = menace(
        "validate",
        "after_game",
        "--course",
        str(course),
        "--sandbox",
        "process",
        "--jobs",
        "2",
        "--format",
        "json",
    )
    assert two.json()["challenges"][0]["mutants"] == one


@pytest.mark.bwrap
def test_after_game_validates_in_bubblewrap(course, menace):
    ran = menace("validate", "after_game", "--course", str(course), "--sandbox", "bwrap", "--format", "json")
    assert ran.code == 0, ran.out
    assert ran.json()["ok"]
