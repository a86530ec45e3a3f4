"""What the service logs when the grader itself fails: the exception's type and where, never its message.

A grader bug may raise with a hidden test's input or answer in the message, and a
traceback's source lines are a hidden test's code. The log (``where`` for an exception
in the grader process, ``without_code`` for a test's traceback) keeps file:line places,
the test's name and the exception's type, and nothing else.
"""

from __future__ import annotations

import traceback

from menace_course.service.dispatch.grading import where, without_code

HIDDEN = "[61, 62, 63, 64, 65, 66, 67, 68, 69]"


def _raise_with_the_input() -> None:
    box = [61, 62, 63, 64, 65, 66, 67, 68, 69]
    raise KeyError(f"no rule for {box}")


def _caught() -> BaseException:
    try:
        _raise_with_the_input()
    except KeyError as error:
        return error
    raise AssertionError("did not raise")


def test_a_grader_bug_is_logged_by_its_type_and_place_never_by_its_message() -> None:
    line = where(_caught())
    assert line.startswith("KeyError (at ") and "test_grader_log.py:" in line
    assert "_raise_with_the_input" in line
    assert HIDDEN not in line and "no rule" not in line


def test_a_hidden_tests_traceback_is_logged_without_its_code_or_its_message() -> None:
    first = "test test_one_more_box:\n" + "".join(traceback.format_exception(_caught()))
    try:
        raise ValueError(f"two lines\n{HIDDEN}")  # a message over lines: the last is not the type
    except ValueError as error:
        second = "test test_two:\n" + "".join(traceback.format_exception(error))
    logged = without_code((first, second))
    assert logged.startswith("test test_one_more_box: | Traceback") and "test test_two:" in logged
    assert "KeyError" in logged and "ValueError" in logged and "test_grader_log.py" in logged
    assert HIDDEN not in logged and "no rule" not in logged and "two lines" not in logged
    assert "box = " not in logged  # the source line of the frame
