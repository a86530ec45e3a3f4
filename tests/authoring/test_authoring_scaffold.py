"""``menace new SLUG`` writes a whole challenge that validates at once, and refuses bad names."""

from __future__ import annotations

import pytest

from menace_course.authoring.scaffold import FILES

WRITTEN = [
    "challenges/bead_total/challenge.toml",
    "challenges/bead_total/README.md",
    "challenges/bead_total/starter.py",
    "challenges/bead_total/wrong/README.md",
    "challenges/bead_total/wrong/adds_two.py",
    "hidden_tests/bead_total/test_bead_total.py",
    "reference/bead_total.py",
    "feedback_templates/hints/bead_total_rules.md.j2",
]


def test_new_writes_the_challenge_its_hidden_tests_and_its_reference(course, menace):
    ran = menace("new", "bead_total", "--course", str(course))
    assert ran.code == 0, ran.err
    for path in WRITTEN:
        assert (course / path).is_file(), path
        assert path in ran.out
    assert len(FILES) == len(WRITTEN)


def test_new_fills_the_templates_with_the_slug(course, menace):
    menace("new", "bead_total", "--course", str(course))
    assert "def bead_total(n):" in (course / "reference/bead_total.py").read_text()
    assert 'function = "bead_total"' in (course / "challenges/bead_total/challenge.toml").read_text()
    assert "{{" not in (course / "hidden_tests/bead_total/test_bead_total.py").read_text()


@pytest.mark.slow
def test_a_new_challenge_validates_out_of_the_box(course, menace):
    menace("new", "bead_total", "--course", str(course))
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
    assert ran.code == 0, ran.out
    result = ran.json()["challenges"][0]
    assert result["ok"] and result["wrong_caught"] and result["starter_fails"]
    assert result["mutants"]["killed"] == result["mutants"]["total"] > 0


def test_challenge_texts_word_the_hidden_tests_for_the_web_page_as_well_as_menace_check(course, menace):
    """The README is shown on the service's page /c/SLUG too, where there is no ``menace check``."""
    menace("new", "bead_total", "--course", str(course))
    readmes = sorted((course / "challenges").glob("*/README.md"))
    assert len(readmes) > 1
    for readme in readmes:
        text = " ".join(readme.read_text(encoding="utf-8").split())
        assert "`menace check` lists them" not in text, readme
        assert "tests you can't see: the check lists them by name" in text, readme


def test_new_refuses_a_slug_that_exists(course, menace):
    ran = menace("new", "after_game", "--course", str(course))
    assert ran.code == 2
    assert "already exists" in ran.err
    assert "Traceback" not in ran.err


def test_new_refuses_a_slug_whose_files_are_already_there(course, menace):
    (course / "reference" / "bead_total.py").write_text("def bead_total(n):\n    return n\n")
    ran = menace("new", "bead_total", "--course", str(course))
    assert ran.code == 2
    assert "reference/bead_total.py" in ran.err
    assert not (course / "challenges" / "bead_total").exists()


@pytest.mark.parametrize(
    ("slug", "reason"),
    [
        ("Bead_total", "lowercase"),
        ("b", "lowercase"),
        ("9lives", "starting with a letter"),
        ("bead-total", "lowercase letters, digits"),
        ("class", "keyword"),
        ("match", "keyword"),
        ("json", "module"),
        ("hypothesis", "module"),
        ("max", "built-in"),
    ],
)
def test_new_refuses_an_invalid_slug_with_the_reason(course, menace, slug, reason):
    ran = menace("new", slug, "--course", str(course))
    assert ran.code == 2
    assert reason in ran.err
    assert repr(slug) in ran.err
    assert not (course / "challenges" / slug).exists()


def test_new_refuses_a_folder_that_is_not_a_course(tmp_path, menace):
    ran = menace("new", "bead_total", "--course", str(tmp_path))
    assert ran.code == 2
    assert "not a course folder" in ran.err
