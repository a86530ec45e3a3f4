"""The static scan flags code that reaches into the grader, and nothing a lesson's answer does."""

from pathlib import Path

import pytest

from menace_course.models import SubmissionReport
from menace_course.sandbox.outcomes import Tampering
from menace_course.sandbox.scan import findings, scan

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "source, what",
    [
        ("import __main__\n", "imports `__main__`"),
        ("from __main__ import answer\n", "imports `__main__`"),
        ("import sys\nx = sys.modules\n", "reads `sys.modules`"),
        ("import sys as s\nf = s._getframe(1)\n", "sys._getframe"),
        ("from sys import _getframe\n", "sys._getframe"),
        ("import gc\n", "imports `gc`"),
        ("g = __import__('gc')\n", "imports `gc`"),
        ("import importlib\nc = importlib.import_module('ctypes')\n", "imports `ctypes`"),
        ("from ctypes import CDLL\n", "imports `ctypes`"),
        ("import inspect\nf = inspect.currentframe()\n", "inspect.currentframe"),
        ("def f(e):\n    return e.__traceback__.tb_frame.f_back\n", "tb_frame"),
        ("def f(g):\n    return getattr(g, 'f_locals')\n", "f_locals"),
        ("x = object.__subclasses__()\n", "__subclasses__"),
        ("def f(h):\n    h.__code__ = None\n", "__code__"),
        ("import sys\nsys.settrace(None)\n", "sys.settrace"),
        ("import sys\ng = getattr(type(sys.stdout).write, '__glo' + 'bals__')\n", "__globals__"),
        ("name = '__buil' 'tins__'\n", "__builtins__"),
    ],
)
def test_introspection_of_the_grader_is_flagged_with_its_line(source, what):
    found = scan(source)
    assert found and any(what in f.what for f in found), found
    assert all(f.source == "code" and f.line >= 1 for f in found)


@pytest.mark.parametrize(
    "path", ["examples/after_game_student.py", "examples/after_game_buggy.py", "reference/after_game.py"]
)
def test_an_honest_answer_is_not_flagged(path):
    assert scan((REPO / path).read_text(encoding="utf-8")) == ()


def test_ordinary_python_is_not_flagged():
    source = (
        'import random, copy, sys\nfrom collections import namedtuple\nPoint = namedtuple("P", "x")\n'
        "def f(beads):\n    print(sys.argv, file=sys.stderr)\n    return copy.deepcopy(beads)\n"
        'if __name__ == "__main__":\n    f([1])\n'
    )
    assert scan(source) == ()


def test_a_file_that_does_not_parse_has_no_findings():
    assert scan("def f(:\n") == ()


def test_what_the_sandbox_saw_joins_the_findings_in_plain_names_only():
    attempts = [Tampering("import", "ctypes\x1b[2J"), Tampering("forged message", "without the nonce")]
    found = findings("import gc\n", attempts)
    assert [f.source for f in found] == ["code", "sandbox", "sandbox"]
    assert "`ctypes2J`" in found[1].what and "\x1b" not in found[1].what
    assert found[2].what == "wrote a message to the grader that the harness did not send"


def test_a_report_with_findings_is_never_a_pass_and_keeps_them_in_its_json():
    report = SubmissionReport.from_dict(
        {
            "challenge": "c",
            "title": "t",
            "function": "f",
            "file": "f.py",
            "sandbox": "bwrap",
            "status": "checked",
            "tests": [],
            "score": 1.0,
            "max_score": 1.0,
            "integrity": [{"source": "code", "what": "imports `gc`", "line": 1}],
        }
    )
    assert report.needs_review and not report.passed
    assert SubmissionReport.from_dict(report.to_dict()) == report
