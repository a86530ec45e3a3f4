"""A student reads the feedback and the commands' lines in their language: English or Traditional Chinese."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys

import pytest

from menace_course import language
from menace_course.feedback import environment, render
from menace_course.models import Problem
from tests.conftest import run_menace
from tests.support import REPO

TEMPLATES = REPO / "feedback_templates"
WRONG = "def after_game(beads, square, result):\n    beads[square] += 1\n    return beads\n"


def menace_with(env: dict[str, str], *args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    """``menace ARGS`` with the language variables of ``env`` only (nothing of the caller's)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    return subprocess.run(
        [sys.executable, "-m", "menace_course", *args],
        cwd=cwd or REPO,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_check_with_lang_zh_tw_gives_the_feedback_in_chinese(tmp_path):
    path = tmp_path / "after_game.py"
    path.write_text(WRONG)
    done = run_menace("check", str(path), "--sandbox", "process", "--lang", "zh_TW", timeout=120)
    assert done.returncode == 1, done.stderr
    assert "✗ after_game 回傳的值不一樣\n" in done.stdout
    assert re.search(r"得分 [\d.]+/15\.0：15 項檢查中有 \d+ 項通過。 下一步：上面的第一個問題。", done.stdout)
    assert "returned a different value" not in done.stdout and "Score" not in done.stdout


def test_lang_from_the_environment_chooses_chinese_and_the_json_stays_english(tmp_path):
    path = tmp_path / "after_game.py"
    path.write_text(WRONG)
    args = ("check", str(path), "--sandbox", "process", "--format")
    done = menace_with({"LANG": "zh_TW.UTF-8"}, *args, "markdown")
    assert "### ❌ after_game 回傳的值不一樣" in done.stdout
    assert "### 題目的範例" in done.stdout
    data = menace_with({"LC_ALL": "zh_TW.UTF-8"}, *args, "json")
    assert '"message": "returned a different value"' in data.stdout  # a report is data: its reader words it


def test_an_unknown_lang_falls_back_to_english_with_one_line_saying_so(tmp_path):
    path = tmp_path / "after_game.py"
    path.write_text(WRONG)
    done = run_menace("check", str(path), "--sandbox", "process", "--lang", "klingon", timeout=120)
    assert done.returncode == 1
    assert done.stderr == "menace: no translation for --lang 'klingon'; showing English.\n"
    assert "✗ after_game returned a different value\n" in done.stdout


def test_a_usage_error_is_in_the_students_language_with_clicks_values_kept(tmp_path):
    done = run_menace("check", "--lang", "zh_TW", timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "用法：python -m menace_course check [OPTIONS] FILE\n"
        "執行 'python -m menace_course check --help' 看說明。\n\n錯誤：缺少引數 'FILE'。\n"
    )
    # click stops at --bogus before it reads --lang: the language is still the one asked for
    done = run_menace("check", "--bogus", "--lang", "zh_TW", timeout=60)
    assert done.stderr.endswith("錯誤：沒有 '--bogus' 這個選項。你是不是要用 '--course'？\n")
    done = menace_with({"LANG": "zh_TW.UTF-8"}, "check", "x.py", "--format", "pdf")
    choices = "'text', 'markdown', 'html', 'json'"
    assert done.stderr.endswith(f"錯誤：'--format' 的值不對：'pdf' 不是 {choices} 之一。\n")


def test_in_english_a_usage_error_is_clicks_own_line_for_line():
    done = menace_with({"LANG": "C.UTF-8"}, "check")
    assert (done.returncode, done.stderr) == (
        2,
        "Usage: python -m menace_course check [OPTIONS] FILE\n"
        "Try 'python -m menace_course check --help' for help.\n\n"
        "Error: Missing argument 'FILE'.\n",
    )


def test_start_tells_the_next_steps_in_chinese(tmp_path):
    done = menace_with({"LANGUAGE": "zh_TW:en"}, "start", "after_game", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "已寫入 after_game.py。\n"
        "要寫什麼：menace show after_game\n"
        "在 after_game.py 裡寫你的函式，然後執行：menace check after_game.py\n"
    )


@pytest.mark.parametrize(
    ("tag", "found"),
    [
        ("zh-TW", "zh_TW"),
        ("zh_TW.UTF-8", "zh_TW"),
        ("zh-Hant", "zh_TW"),
        ("en-GB", "en"),
        ("C", "en"),
        ("fr", None),
    ],
)
def test_language_tags_name_the_catalog(tag, found):
    assert language.known(tag) == found


def test_the_first_language_variable_set_decides_as_in_gettext():
    assert language.from_environment({"LC_ALL": "en_US.UTF-8", "LANG": "zh_TW.UTF-8"}) == "en"
    assert language.from_environment({"LANGUAGE": "fr:zh_TW", "LANG": "en_US"}) == "zh_TW"
    assert language.from_environment({"LANG": "de_DE.UTF-8"}) == "en"
    assert language.from_environment({}) == "en"


def test_a_message_with_no_translation_is_shown_in_english_never_as_an_id():
    assert language.gettext("A sentence no catalog has.", "zh_TW") == "A sentence no catalog has."


#: What may stay in Latin letters in Chinese feedback: code, names, error kinds, and the commands.
ALLOWED_LATIN = re.compile(
    r"`[^`]*`|%\(\w+\)s|\b(?:Python|Tab|None|False|Jupyter|Kernel|Restart|Run|All|markdown|menace(?:_course)?|"
    r"start|check|URL|tuple|def|\w+Error)\b|[A-Za-z_]\w*\(.*?\)"
)


def english_left(text: str) -> list[str]:
    """Runs of two or more English words left in ``text`` once code and names are taken out."""
    rest = ALLOWED_LATIN.sub(" ", text)
    return re.findall(r"[A-Za-z]{2,}(?:[ ,;:'-]+[A-Za-z]{2,})+", rest)


@pytest.mark.parametrize("problem", sorted(Problem))
def test_every_problem_is_worded_in_chinese_with_no_english_left(problem):
    env = environment(TEMPLATES, "text", "zh_TW")
    template = env.from_string(
        '{% import "words.j2" as w %}{{ w.problem(p, "after_game") }}|{{ w.advice(p) }}|'
        "{{ w.load_advice(p) }}|{{ w.load_advice(p, notebook=true) }}|{{ problem_message(p) }}"
    )
    text = template.render(p=Problem(problem))
    assert english_left(text) == [], text


@pytest.mark.parametrize("kind", ["IndexError", "KeyError", "TypeError", "ValueError", "NameError", None])
def test_a_hidden_checks_advice_is_in_chinese(kind):
    env = environment(TEMPLATES, "text", "zh_TW")
    template = env.from_string('{% import "words.j2" as w %}{{ w.hidden_advice(t, "after_game") }}')
    detail = type("D", (), {"problem": "raised", "error_type": kind})()
    text = template.render(t=type("T", (), {"detail": detail, "is_visible": False, "hint": "x"})())
    assert text.startswith("這項檢查不會顯示它的輸入。") and english_left(text) == [], text


def _report(path):
    from menace_course.models import SubmissionReport

    done = run_menace("check", str(path), "--sandbox", "process", "--format", "json", timeout=120)
    return SubmissionReport.from_dict(json.loads(done.stdout))


@pytest.mark.parametrize(
    "source",
    [
        WRONG,
        (REPO / "challenges" / "after_game" / "wrong" / "changes_the_list.py").read_text(encoding="utf-8"),
        "def after_game(beads, square, result):\n    while True:\n        pass\n",
        "def after_game(beads, square, result):\n    return beads[20]\n",
        "def after_game(beads, square, result)\n    return beads\n",
        "def after_gme(beads, square, result):\n    return beads\n",
        "# nothing yet\n",
    ],
    ids=["wrong_value", "changed_input", "timeout", "raised", "syntax", "misspelt", "empty"],
)
def test_the_whole_feedback_in_zh_tw_has_no_english_sentence_but_the_courses_titles(tmp_path, source):
    path = tmp_path / "after_game.py"
    path.write_text(source)
    report = _report(path)
    titles = {report.title, *(t.title for t in report.tests), *report.hidden_not_run}
    for format in ("text", "markdown", "html"):
        text = render(report, TEMPLATES, format, "zh_TW")  # type: ignore[arg-type]
        if format == "html":
            text = html.unescape(re.sub(r"(?s)<style>.*?</style>|<code>.*?</code>|<[^>]+>", " ", text))
        for title in sorted(titles, key=len, reverse=True):
            text = text.replace(title, " ")
        # The student's own code, the calls and values, and Python's own message stay as they are.
        kept = [
            ln
            for ln in text.splitlines()
            if not re.match(r"\s*(after_g\w*\(|def |第 \d+ 行|[A-Z]\w*Error)", ln)
        ]
        assert english_left("\n".join(kept)) == [], (format, text)


def test_an_instructors_command_speaks_english_whatever_the_machines_lang(tmp_path):
    (tmp_path / "submissions").mkdir()
    args = ("submissions", "--challenge", "after_gme", "--out", "out", "--course", str(REPO))
    graded = menace_with({"LANG": "zh_TW.UTF-8"}, "grade", *args, cwd=tmp_path)
    assert graded.returncode == 2 and "menace: no challenge named 'after_gme'; did you mean" in graded.stderr
    shown = menace_with({"LANG": "zh_TW.UTF-8"}, "show", "after_gme", cwd=tmp_path)
    assert shown.returncode == 2 and "沒有名為 'after_gme' 的題目" in shown.stderr  # a student's command
