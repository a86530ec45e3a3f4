"""challenge.toml is read once against one schema: every wrong key or type is named, with its file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from menace_course import catalog
from menace_course.course import Course
from menace_course.errors import CourseError
from tests.support import REPO

GOOD = """\
title = "Twice"
function = "twice"
params = ["n"]
pure = true
[limits]
call_seconds = 2
[[examples]]
args = [3]
expected = 6
[[examples]]
args_py = "((1, 2),)"
expected_py = "(2, 4)"
[validate]
mutate = ["twice"]
"""


def course_with(tmp_path: Path, toml: str) -> Course:
    folder = tmp_path / "challenges" / "twice"
    folder.mkdir(parents=True)
    (folder / "challenge.toml").write_text(toml, encoding="utf-8")
    shutil.copytree(REPO / "feedback_templates", tmp_path / "feedback_templates")
    return Course(tmp_path)


def load(tmp_path: Path, toml: str) -> catalog.Challenge:
    return catalog.load_challenge(course_with(tmp_path, toml), "twice")


def error_of(tmp_path: Path, toml: str) -> str:
    with pytest.raises(CourseError) as raised:
        load(tmp_path, toml)
    message = str(raised.value)
    assert message.startswith(str(tmp_path / "challenges" / "twice" / "challenge.toml") + ": ")
    return message.split(": ", 1)[1]


def test_a_good_file_gives_typed_values(tmp_path):
    challenge = load(tmp_path, GOOD)
    assert challenge.limits.call_seconds == 2.0 and type(challenge.limits.call_seconds) is float
    assert challenge.examples[1].args == ((1, 2),) and challenge.examples[1].expected == (2, 4)
    assert challenge.mutate == ("twice",) and challenge.params == ("n",)


def test_every_challenge_of_the_course_reads():
    course = Course(REPO)
    assert {c.slug for c in catalog.load_all(course)} == set(catalog.list_slugs(course))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("call_seconds = 2", 'call_seconds = "2"'),
            "limits.call_seconds: expected a number, got the string '2'",
        ),
        (("pure = true", 'pure = "yes"'), "pure: expected true or false, got the string 'yes'"),
        (("pure = true", "pure = 1"), "pure: expected true or false, got the number 1"),
        (
            ("call_seconds = 2", "call_seconds = true"),
            "limits.call_seconds: expected a number, got the boolean True",
        ),
        (("call_seconds = 2", "cal_seconds = 2"), "[limits]: unknown key 'cal_seconds'; the keys are: "),
        (('title = "Twice"\n', 'title = "Twice"\ncolour = "red"\n'), "the file: unknown key 'colour'"),
        (('title = "Twice"\n', ""), "title: missing (it is required)"),
        (('params = ["n"]', "params = [1]"), "params[1]: expected a string, got the number 1"),
        (('params = ["n"]', 'params = "n"'), "params: expected an array, got the string 'n'"),
        (('mutate = ["twice"]', 'mutate = "twice"'), "validate.mutate: expected an array"),
        (("args = [3]", 'args = [3]\nargs_py = "(3,)"'), "examples[1]: give args or args_py (one of them)"),
        (("expected = 6", ""), "examples[1]: give expected or expected_py (one of them)"),
        (
            ('expected_py = "(2, 4)"', 'expected_py = "(2, 4"'),
            "examples[2].expected_py: expected a Python literal",
        ),
        (
            ('function = "twice"', 'function = "two words"'),
            "function: expected a Python name, got 'two words'",
        ),
        (("call_seconds = 2", "call_seconds = -1"), "limits.call_seconds: expected more than 0, got -1.0"),
        (
            ('mutate = ["twice"]', "mutant_threshold = 90"),
            "validate.mutant_threshold: expected a share from 0 to 1",
        ),
    ],
)
def test_a_wrong_key_or_type_names_the_file_the_key_and_what_was_expected(tmp_path, change, message):
    old, new = change
    assert old in GOOD
    assert error_of(tmp_path, GOOD.replace(old, new, 1)).startswith(message)


def test_validate_reads_the_validate_table_from_the_challenge_not_the_file_again(tmp_path):
    from menace_course.authoring.checks import mutation_settings

    challenge = load(tmp_path, GOOD)
    (challenge.folder / "challenge.toml").unlink()  # read once: the file is not needed again
    assert mutation_settings(challenge).only == ("twice",)
