"""Each challenge's tests tell right from wrong: the reference passes, the starter fails,
every known wrong answer in ``challenges/<slug>/wrong`` (the same files ``menace validate``
reads) fails, and every right one in ``tests/corpus/<slug>/right`` passes.

Checks run in this process through the real command line (``menace check ... --course``),
which is much faster than a new Python for each of the sixty-odd files; the submissions
themselves still run in the sandbox, never here. The golden files hold the text feedback
for one typical wrong answer per challenge; ``MENACE_UPDATE_GOLDENS=1`` rewrites them.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest

from menace_course.cli import main

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus"
GOLDEN = Path(__file__).resolve().parent / "golden"
SLUGS = ("after_game", "count_boxes", "opening_box")


def menace_check(path: Path, slug: str, output_format: str = "json") -> tuple[int, str]:
    """Run ``menace check PATH --challenge SLUG`` and give back its exit code and output."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="")  # like a UTF-8 pipe: ✓, not :)
    err = io.StringIO()
    argv = ["check", str(path), "--challenge", slug, "--format", output_format]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with pytest.raises(SystemExit) as done:
            main([*argv, "--course", str(REPO)])
    out.flush()
    code = done.value.code
    assert isinstance(code, int), (code, err.getvalue())
    return code, raw.getvalue().decode("utf-8")


def report_of(path: Path, slug: str) -> tuple[int, dict]:
    code, out = menace_check(path, slug)
    return code, json.loads(out)


def failing(report: dict) -> list[str]:
    return [t["name"] for t in report["tests"] if t["outcome"] != "passed"]


def folder(slug: str, kind: str) -> Path:
    return REPO / "challenges" / slug / "wrong" if kind == "wrong" else CORPUS / slug / kind


def corpus(kind: str) -> list[tuple[str, Path]]:
    return [(slug, path) for slug in SLUGS for path in sorted(folder(slug, kind).glob("*.py"))]


def first_line(path: Path) -> str:
    """The line that says what the answer is (after any ``# caught-by:`` line)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(line for line in lines if not line.startswith("# caught-by:"))


@pytest.mark.parametrize("slug", SLUGS)
def test_the_reference_passes_every_check(slug):
    code, report = report_of(REPO / "reference" / f"{slug}.py", slug)
    assert (code, report["passed"], failing(report)) == (0, True, [])
    assert report["score"] == report["max_score"] > 0


@pytest.mark.parametrize("slug", SLUGS)
def test_the_starter_file_does_not_pass(slug):
    code, report = report_of(REPO / "challenges" / slug / "starter.py", slug)
    assert code == 1 and report["status"] == "checked" and not report["passed"]
    assert any(t["kind"] == "example" and t["outcome"] == "failed" for t in report["tests"])


@pytest.mark.parametrize("slug, path", corpus("wrong"), ids=lambda v: v.stem if isinstance(v, Path) else v)
def test_every_wrong_answer_fails(slug, path):
    assert first_line(path).startswith("# Wrong: "), "say what is wrong on the first line"
    code, report = report_of(path, slug)
    assert code == 1 and report["passed"] is False, first_line(path)
    assert report["status"] == "checked", "a wrong answer must load and be checked"


@pytest.mark.parametrize("slug, path", corpus("right"), ids=lambda v: v.stem if isinstance(v, Path) else v)
def test_every_right_answer_passes(slug, path):
    assert first_line(path).startswith("# Right: ")
    code, report = report_of(path, slug)
    assert (code, failing(report)) == (0, []), first_line(path)


def test_each_challenge_has_wrong_and_right_answers_to_test_it_with():
    for slug in SLUGS:
        assert len(list(folder(slug, "wrong").glob("*.py"))) >= 8, slug
        assert len(list(folder(slug, "right").glob("*.py"))) >= 2, slug


@pytest.mark.parametrize("slug", SLUGS)
def test_every_hint_a_challenge_names_has_words(slug):
    from menace_course import catalog
    from menace_course.checking.suite import collect
    from menace_course.course import Course
    from menace_course.feedback import hint_ids

    course = Course(REPO)
    suite = collect(course, catalog.load_challenge(course, slug))
    named = {case.hint for case in suite.cases if case.hint}
    source = (REPO / "hidden_tests" / slug / f"test_{slug}.py").read_text(encoding="utf-8")
    named |= set(re.findall(r"hint=\"(\w+)\"", source))
    assert named and named <= hint_ids(REPO / "feedback_templates")


# -- golden text feedback: one typical wrong answer per challenge ---------------------------

GOLDENS = {
    "after_game_no_floor": ("after_game", folder("after_game", "wrong") / "no_floor.py"),
    "count_boxes_no_symmetry": ("count_boxes", folder("count_boxes", "wrong") / "no_symmetry.py"),
    "opening_box_ninth_move_is_a_draw": (
        "opening_box",
        folder("opening_box", "wrong") / "ninth_move_is_a_draw.py",
    ),
}


def normalised(text: str) -> str:
    """The feedback with the one line that depends on the machine (which sandbox ran) fixed."""
    return re.sub(r"sandbox: \w+( \(not isolated\))?", "sandbox: bwrap", text)


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_text_feedback_for_a_typical_wrong_answer_matches_its_golden(name):
    slug, path = GOLDENS[name]
    code, text = menace_check(path, slug, "text")
    assert code == 1
    text = normalised(text)
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("MENACE_UPDATE_GOLDENS") == "1":
        golden.write_text(text, encoding="utf-8")
    assert golden.is_file(), f"no golden yet: run with MENACE_UPDATE_GOLDENS=1 to write {golden}"
    assert text == golden.read_text(encoding="utf-8")


def test_text_feedback_after_html_feedback_from_the_same_template_cache_is_not_html_escaped(
    tmp_path, monkeypatch
):
    # The compiled templates are kept between runs; autoescaping (html) is compiled into
    # them, so an html report compiled first must not make the terminal's text report show
    # "Michie&#39;s" (seen in the whole suite, where an html check ran before this golden).
    from menace_course import feedback

    monkeypatch.setenv("MENACE_CACHE_DIR", str(tmp_path / "cache"))
    slug, path = GOLDENS["after_game_no_floor"]
    feedback.environment.cache_clear()
    try:
        assert menace_check(path, slug, "html")[0] == 1
        feedback.environment.cache_clear()  # a new process: templates come from the cache
        code, text = menace_check(path, slug, "text")
    finally:
        feedback.environment.cache_clear()
    assert code == 1 and "Michie's rules for one box" in text and "&#39;" not in text
