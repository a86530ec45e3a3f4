"""No points for nothing: files that cost nothing to write earn (almost) nothing.

``tests/corpus/<slug>/nothing/`` holds such files, each with its second line saying what it
may earn at most: ``# most: 0`` for a file that does nothing, ``# most: 1/3`` for one that
only gives back the answers the challenge prints. (``menace validate`` generates the same
kinds of file for every challenge; these are the ones that once earned points.)
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from tests.check.test_challenges import report_of

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
FILES = sorted(CORPUS.glob("*/nothing/*.py"))

pytestmark = pytest.mark.bwrap


def most_of(path: Path) -> Fraction:
    line = path.read_text(encoding="utf-8").splitlines()[1]
    assert line.startswith("# most: "), f"{path}: the second line says what it may earn"
    return Fraction(line.removeprefix("# most: "))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_a_file_that_costs_nothing_earns_at_most_what_it_may(path):
    slug = path.parent.parent.name
    code, report = report_of(path, slug)
    assert code == 1 and report["status"] == "checked" and not report["passed"]
    most = most_of(path)
    passed = [t["name"] for t in report["tests"] if t["outcome"] == "passed"]
    assert Fraction(report["score"]) <= most * Fraction(report["max_score"]), (report["score"], passed)
    if most == 0:
        assert passed == []


def test_the_corpus_has_the_attacks_that_once_earned_points():
    names = {f"{p.parent.parent.name}/{p.stem}" for p in FILES}
    assert {"after_game/returns_none", "opening_box/returns_none", "count_boxes/readme_numbers"} <= names
