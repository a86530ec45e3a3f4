"""Nothing a student reads escapes the catalog: in Chinese, no English sentence is left anywhere.

The other language tests look at one template or one problem at a time; this one looks at
everything the commands print, as a student runs them: ``menace check --lang zh_TW`` on
submissions of the corpus (``tests/corpus``) and on notebooks, in text and markdown, and the error paths a
student meets (no such file, a file that is not a ``.py``, an unknown challenge, a folder
with two answers, an unreadable file, an unreachable ``--server``, ``menace start`` and
``show``). Their stdout and stderr, with what is rightly in Latin letters taken out (the
student's own code and what it printed, the course's titles, the values and Python's own
messages), must leave :func:`~tests.student.test_languages.english_left` nothing. A sentence
built in Python without gettext, or added to the code without its translation, fails here.

The whole corpus takes minutes on two cores, so the corpus is sampled, the same way every
run: the first :data:`PER_FOLDER` files (by name) of every ``<challenge>/right`` and
``<challenge>/nothing`` folder and of ``hostile_output`` (run with ``--sandbox process``:
they are honest answers, or attack only the output), and from ``hostile`` one file for each
way a check can end (:data:`HOSTILE_SAMPLE`, run in bubblewrap: they attack the machine).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from tests.student.test_languages import english_left
from tests.student.test_notebooks import notebook
from tests.support import REPO

CORPUS = REPO / "tests" / "corpus"
#: How many files of each honest corpus folder are checked.
PER_FOLDER = 2
#: One hostile file for each way a check ends (run in bubblewrap, never as a plain process).
HOSTILE_SAMPLE = {
    "infinite_loop_in_call.py": "a call that does not finish",
    "infinite_loop_at_import.py": "a file that does not finish loading",
    "os_exit_in_call.py": "a call that stops Python",
    "sys_exit_in_call.py": "a call that ends the program",
    "input_at_import.py": "asking for input",
    "memory_bomb.py": "too much memory",
    "deep_recursion.py": "recursion without end",
    "returns_huge_int.py": "a value too large",
    "syntax_error.py": "a syntax error",
    "missing_function.py": "no function of that name",
    "misspelled_function.py": "a misspelt function",
    "wrong_arity.py": "the wrong parameters",
    "changes_input.py": "a changed argument",
    "returns_tuple.py": "the wrong type",
    "empty_file.py": "nothing handed in",
    "cp1252_encoded.py": "a file not in UTF-8",
    "crash_at_import.py": "an error while loading",
    "imports_reference.py": "a module that is not there",
    "print_flood.py": "printing without end",
}
SLUGS = ("after_game", "count_boxes", "name", "new_box", "opening_box", "play_game")


def _sample() -> list[Path]:
    honest = [
        sorted(folder.glob("*.py"))[:PER_FOLDER]
        for slug in SLUGS
        for folder in (CORPUS / slug / "right", CORPUS / slug / "nothing")
        if folder.is_dir()
    ]
    honest.append(sorted((CORPUS / "hostile_output").glob("*.py"))[:PER_FOLDER])
    return [p for group in honest for p in group] + [CORPUS / "hostile" / n for n in HOSTILE_SAMPLE]


def _slug(path: Path) -> str:
    """The challenge a corpus file answers: its folder's, or ``# Hostile (SLUG)``'s, else after_game."""
    if path.parent.parent.name in SLUGS:
        return path.parent.parent.name
    first = path.read_text(encoding="utf-8", errors="replace").partition("\n")[0]
    named = re.match(r"# Hostile \((\w+)\)", first)
    return named.group(1) if named else "after_game"


def menace_zh(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``menace ARGS --lang zh_TW`` (``step``, which has no ``--lang``: ``LANGUAGE=zh_TW``), with no
    language of the caller's and the warm checker off."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    env["MENACE_WARM"] = "off"
    env["LANGUAGE"] = "zh_TW"
    lang = () if args[0] == "step" else ("--lang", "zh_TW")
    return subprocess.run(
        [sys.executable, "-m", "menace_course", *args, *lang],
        cwd=cwd or REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@cache
def course_words() -> tuple[str, ...]:
    """The course's own words, not translated: challenge titles and test titles, longest first."""
    from menace_course import catalog
    from menace_course.checking.suite import collect
    from menace_course.course import Course

    course = Course(REPO)
    words: set[str] = set()
    for challenge in catalog.load_all(course):
        suite = collect(course, challenge)
        words |= {challenge.title, *(c.title for c in suite.cases), *suite.hidden_not_run}
    return tuple(sorted(words, key=len, reverse=True))


#: What a student types or names, which is never translated: commands and their options, names
#: with an underscore (challenges, functions), quoted values and web addresses.
TYPED = re.compile(
    r"\bmenace(?: [\w./-]+)+|--[\w-]+(?: [A-Z]+\b)?|\b\w+_\w+\b(?!\()|'[^'\n]*'|\b\w+://\S+|\b[\w-]+\.(?:py|ipynb)\b"
)
#: Python's own message after an error's kind (``ValueError: ...``), and a traceback's frame.
#: A call as the feedback shows it: ``after_game([4, 4, 0], 4, 'win')``.
CALL = re.compile(r"[A-Za-z_]\w*\(")
#: Where a line of the student's code is named (``第 5 行: ``, ``第 2 格，第 1 行，在 f 中: ``), before it.
LINE_OF = re.compile(r"^第 \d+ (?:行|格)[^:：]*[:：]\s*")
#: A value the sandbox could not send whole, as Python shows it (``<generator object f at 0x...>``).
OPAQUE = re.compile(r"<[^<>]*>")
PYTHONS_OWN = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b(?::.*| \([^()]*\))?|File \"[^\"]*\".*"
)


def students_part_removed(text: str, source: str = "") -> str:
    """``text`` without what is rightly in Latin letters: the student's code and what it printed,
    the course's titles, and Python's own messages."""
    for words in course_words():
        text = text.replace(words, " ")
    kept = []
    for line in text.splitlines():
        bare = LINE_OF.sub("", line.strip().strip("`|>").strip()).replace("\\_", "_")
        if bare and (bare in source or CALL.match(bare)):
            continue  # a line of the student's code, of what it printed, or a call with its values
        kept.append(TYPED.sub(" ", OPAQUE.sub(" ", PYTHONS_OWN.sub(" ", line))))
    return "\n".join(kept)


def _check_both_formats(path: Path) -> tuple[Path, str]:
    sandbox = "bwrap" if path.parent.name == "hostile" else "process"
    said = []
    for output in ("text", "markdown"):
        done = menace_zh(
            "check", str(path), "--challenge", _slug(path), "--sandbox", sandbox, "--format", output
        )
        said.append(done.stdout + done.stderr)
    return path, "\n".join(said)


@pytest.fixture(scope="module")
def corpus_said() -> dict[Path, str]:
    """What ``menace check --lang zh_TW`` said of each sampled file, in text and markdown."""
    from menace_course.sandbox.launch import bwrap_works

    files = [p for p in _sample() if p.parent.name != "hostile" or bwrap_works()]
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(pool.map(_check_both_formats, files))


@pytest.mark.slow
def test_the_sample_covers_every_challenge_and_every_hostile_outcome():
    sample = _sample()
    assert {_slug(p) for p in sample} >= {"after_game", "count_boxes", "name", "opening_box", "play_game"}
    assert all(p.is_file() for p in sample), [p for p in sample if not p.is_file()]


@pytest.mark.slow
def test_no_english_sentence_is_left_in_a_check_of_the_corpus_in_chinese(corpus_said):
    left = {
        str(path.relative_to(REPO)): english_left(
            students_part_removed(said, path.read_text(encoding="utf-8", errors="replace"))
        )
        for path, said in corpus_said.items()
    }
    assert {name: found for name, found in left.items() if found} == {}


def _error_paths(tmp: Path) -> dict[str, list[str]]:
    (tmp / "notes.txt").write_text("def after_game(beads, square, result):\n    return beads\n")
    (tmp / "two").mkdir()
    (tmp / "two" / "a.py").write_text("def a():\n    return 1\n")
    (tmp / "two" / "b.py").write_text("def b():\n    return 2\n")
    (tmp / "unrelated.py").write_text("def spam():\n    return 1\n")
    (tmp / "binary.py").write_bytes(b"\x00\x01\x02\x03")
    (tmp / "huge.py").write_text("x = 1\n" * 200_000)
    (tmp / "after_game.py").write_text("def after_game(beads, square, result):\n    return beads\n")
    return {
        "no such file": ["check", "nothere.py"],
        "a folder given to check": ["check", "two"],
        "not a .py": ["check", "notes.txt"],
        "a file that answers nothing": ["check", "unrelated.py"],
        "a binary file": ["check", "binary.py"],
        "a file too large": ["check", "huge.py"],
        "an unknown challenge": ["check", "after_game.py", "--challenge", "after_gme"],
        "an unreachable server": ["check", "after_game.py", "--server", "http://127.0.0.1:9"],
        "not a web address": ["check", "after_game.py", "--server", "ftp://example.edu"],
        "start": ["start", "opening_box"],
        "start twice": ["start", "opening_box"],
        "start an unknown challenge": ["start", "after_gam"],
        "show an unknown challenge": ["show", "after_gam"],
        "a step there is not": ["step", "9"],
        # click's own usage errors (commands/usage_errors.py)
        "no file given": ["check"],
        "an option there is not": ["check", "--bogus"],
        "a format there is not": ["check", "after_game.py", "--format", "pdf"],
        "two files": ["check", "after_game.py", "unrelated.py"],
        "a step that is not a number": ["step", "x"],
        "start without a challenge": ["start"],
    }


@pytest.mark.slow
def test_no_english_sentence_is_left_in_what_a_student_meets_when_something_is_wrong(tmp_path):
    left = {}
    for case, args in _error_paths(tmp_path).items():
        done = menace_zh(*args, cwd=tmp_path)
        said = done.stdout + done.stderr
        assert said.strip() and "Traceback" not in said, (case, said)
        found = english_left(students_part_removed(said))
        if found:
            left[case] = found
    assert left == {}


def test_the_detector_catches_a_sentence_built_without_gettext():
    # The standard for this module: it can fail. A notice built in Python is caught...
    said = "menace: huge.py 無法檢查：the file is larger than 200 KB\n"
    assert english_left(students_part_removed(said)) == ["the file is larger than"]
    # ...while the student's own code, titles and Python's message are not.
    code = "def after_game(beads, square, result):\n    return beads  # leave it as it was\n"
    said = (
        "✗ Back into the box\n    return beads  # leave it as it was\nValueError: list index out of range\n"
    )
    assert english_left(students_part_removed(said, code)) == []


RIGHT = (
    "def after_game(beads, square, result):\n    new = list(beads)\n"
    "    new[square] = max(0, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])\n    return new\n"
)
NOTEBOOKS = {
    "a cell that stops with an error": notebook(("code", RIGHT), ("code", "after_game(beads, 4, 'win')")),
    "IPython lines": notebook(("code", "%matplotlib inline\n!ls\n" + RIGHT)),
    "a syntax error in a cell": notebook(
        ("code", "def after_game(beads, square, result)\n    return beads\n")
    ),
    "a loop in a cell": notebook(("code", RIGHT), ("code", "while True:\n    pass")),
    "not a notebook": '{"cells": 3}',
    "an old notebook": '{"cells": [], "nbformat": 3}',
}


@pytest.mark.slow
@pytest.mark.parametrize("output", ["text", "markdown"])
def test_no_english_sentence_is_left_in_a_check_of_a_notebook_in_chinese(tmp_path, output):
    left = {}
    for case, book in NOTEBOOKS.items():
        path = tmp_path / "after_game.ipynb"
        path.write_text(book)
        done = menace_zh("check", str(path), "--sandbox", "process", "--format", output, cwd=tmp_path)
        said = done.stdout + done.stderr
        assert said.strip() and "Traceback" not in said, (case, said)
        found = english_left(students_part_removed(said, book + "\n" + book.replace("\\n", "\n")))
        if found:
            left[case] = found
    assert left == {}
