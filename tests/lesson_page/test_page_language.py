"""The lesson page speaks the student's language: its widget, its chrome and its API's refusals.

The widget's sentences come from the catalog (``service/lesson/words.py``), rendered into the
page for ``frontend/src/lesson/words.js``, whose English ``WORDS`` must stay the same table;
the page's chrome (controls, labels, headings the page adds) is in the template's ``_()``,
and the lesson's prose in its ``{% trans %}`` blocks. The challenges' texts (the course's own
words) stay English, marked ``lang="en"`` (docs/translating.md).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from menace_course.service.lesson.words import WORDS
from tests.lesson_page.live import LiveServer
from tests.student.test_languages import english_left
from tests.student.test_nothing_escapes_the_catalog import students_part_removed
from tests.support import REPO, js_words

flask = pytest.importorskip("flask")

ZH = {"Accept-Language": "zh-TW,zh;q=0.9,en;q=0.8"}
#: Sentences that are the same in Chinese: names, punctuation.
SAME_IN_CHINESE = {"chartMenace"}
#: Names in the lesson's prose, the same in every language (MENACE's own name spelled out too).
NAMES = ("Machine Educable Noughts And Crosses Engine", "Donald Michie", "Matthew Scroggs", "Lee Sedol")
#: The English page's prose, one block (a heading, a paragraph, an item, a cell) a line, as it
#: read before the prose became messages: the English page must keep reading exactly so.
ENGLISH_PROSE = REPO / "tests" / "lesson_page" / "prose_en.txt"


@pytest.fixture(scope="module")
def app() -> Any:
    from tests.lesson_page.app import make_app

    return make_app()


def _words(page: str) -> dict[str, str]:
    found = re.search(r'<script type="application/json" id="lesson-words">(.*?)</script>', page, re.S)
    assert found, "the lesson page gives the widget its words"
    words: dict[str, str] = json.loads(found.group(1))
    return words


def test_the_widgets_words_are_in_the_pages_language(app: Any) -> None:
    client = app.test_client()
    for asked in ({"path": "/lesson", "headers": ZH}, {"path": "/lesson?lang=zh_TW", "headers": {}}):
        page = client.get(asked["path"], headers=asked["headers"]).get_data(as_text=True)
        chinese = _words(page)
        assert '<html lang="zh-TW">' in page
        assert chinese["buttonStop"] == "停止" and chinese["square4"] == "正中央"
        assert chinese["yourMove"] == "MENACE 下在%(square)s。輪到你：選一個空格。"
        assert [key for key, sentence in chinese.items() if sentence == WORDS[key]] == sorted(SAME_IN_CHINESE)
        assert english_left(" ".join(chinese.values())) == []
        check = re.search(r'<script type="application/json" id="check-words">(.*?)</script>', page, re.S)
        assert check and json.loads(check.group(1))["checking"] == "檢查中…"  # the challenges' check client
    english = client.get("/lesson").get_data(as_text=True)
    assert (
        '<html lang="en">' in english
        and _words(english) == WORDS
        and ' lang="en"' not in english.split("<head>", 1)[1]
    )


def _chrome(page: str) -> str:
    """The page's text outside what is marked English (the challenges' texts), scripts and code."""
    page = page.split("<body>", 1)[1]  # <html lang="en"> is the whole English page
    page = re.sub(r"<(script|pre|code|textarea)\b.*?</\1>", " ", page, flags=re.S)
    marked = re.compile(r'<(\w+)\b[^>]*\blang="en"[^>]*>')
    while (found := marked.search(page)) is not None:  # drop the element, nested tags of its kind counted
        tag, depth, at = found.group(1), 1, found.end()
        for tag_found in re.finditer(rf"<(/?){tag}\b[^>]*>", page[at:]):
            depth += -1 if tag_found.group(1) else 1
            if depth == 0:
                page = page[: found.start()] + " " + page[at + tag_found.end() :]
                break
        else:
            raise AssertionError(f"<{tag} lang=en> is not closed")
    attributes = " ".join(re.findall(r'(?:aria-label|title)="([^"]*)"', page))
    text = re.sub(r"<[^>]+>", " ", page)
    return html.unescape(f"{text} {attributes}")


def _without_names(text: str) -> str:
    for name in NAMES:
        text = text.replace(name, " ")
    return text


def _prose(page: str) -> list[str]:
    """The lesson's prose, one block a line: the hero's kicker and lede, the prose sections, the
    Step programs' titles and texts (not their forms), the challenges' introduction, the footer."""
    blocks = re.finditer(
        r'<(section|article|footer|div|p)\b[^>]*\bclass="(?:prose|program|kicker|lede|wrap foot)"[^>]*>'
        r"(.*?)</\1>",
        page.split("<body>", 1)[1],
        flags=re.S,
    )
    text = " ".join(" </p> ".join(block.group(2) for block in blocks).split())
    text = re.sub(r"<(form|button)\b.*?</\1>", " ", text)
    text = re.sub(r"</(?:p|li|h\d|dt|dd|caption|th|td)>", "\n", text)
    lines = (" ".join(html.unescape(re.sub(r"<[^>]+>", "", line)).split()) for line in text.splitlines())
    return [line for line in lines if line]


def test_the_english_pages_prose_reads_as_it_did(app: Any) -> None:
    page = app.test_client().get("/lesson?seed=1").get_data(as_text=True)
    assert _prose(page) == ENGLISH_PROSE.read_text(encoding="utf-8").splitlines()


def test_the_lessons_prose_is_in_chinese_with_its_numbers(app: Any) -> None:
    client = app.test_client()
    english = _prose(client.get("/lesson?seed=1").get_data(as_text=True))
    page = client.get("/lesson?seed=1", headers=ZH).get_data(as_text=True)
    chinese = _prose(page)
    assert len(chinese) == len(english) > 80  # every block there, each in its place
    prose = "\n".join(chinese)
    assert english_left(students_part_removed(_without_names(prose))) == []
    assert len(english_left(students_part_removed(_without_names("\n".join(english))))) > 100
    assert "MENACE 需要 304 個盒子" in prose and "第 3 步：下棋，然後學習" in prose
    # The numbers are facts of the lesson: each of them is in the Chinese prose as often as in the English.
    number = re.compile(r"\d+(?:,\d{3})*")
    for english_line, chinese_line in zip(english, chinese, strict=True):
        assert sorted(number.findall(english_line)) == sorted(number.findall(chinese_line)), english_line
    # Only what stays English is marked so: the challenges' own texts, not the prose.
    prose_tags = re.findall(r'class="(?:prose|program|kicker|lede|wrap foot)".*?>', page)
    assert len(prose_tags) > 10 and ' lang="en"' not in "".join(prose_tags)


def test_no_english_sentence_is_left_in_the_pages_chrome_in_chinese(app: Any) -> None:
    page = app.test_client().get("/lesson?seed=1", headers=ZH).get_data(as_text=True)
    left = english_left(students_part_removed(_without_names(_chrome(page))))
    assert left == []
    # ...and the check has teeth: the English page's chrome is full of English.
    assert (
        len(
            english_left(
                students_part_removed(_chrome(app.test_client().get("/lesson").get_data(as_text=True)))
            )
        )
        > 30
    )


def test_the_servers_words_are_the_widgets_own_keys_and_english_sentences() -> None:
    # words.js keeps the English table as its default (the unit tests, a page without the table).
    assert js_words("src/lesson/words.js") == WORDS


@pytest.fixture(scope="module")
def server(app: Any) -> Iterator[LiveServer]:
    live = LiveServer(app)
    yield live
    live.close()


@pytest.mark.browser
def test_the_widget_speaks_chinese_in_chromium(server: LiveServer, driver: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(server.url + "/lesson?seed=1&lang=zh_TW")
    status = driver.find_element(By.ID, "status")
    WebDriverWait(driver, 30).until(lambda d: "全新的 MENACE" in status.text)
    assert status.text.startswith("一個全新的 MENACE（種子 1）") and english_left(status.text) == []
    assert driver.find_element(By.ID, "play-one").text == "下 1 局"
    assert driver.find_element(By.ID, "tallies").text.startswith("已下 0 局")
    square = driver.find_element(By.CSS_SELECTOR, "#board .square[data-square='4']")
    assert square.get_attribute("aria-label") == "正中央，空的"
    # A refusal of the widget's API, as the widget shows it: worded in the page's language.
    driver.execute_script("window.menaceWidget.run(() => window.menaceWidget.request({type: 'chess'}))")
    WebDriverWait(driver, 30).until(lambda d: "出了點問題" in status.text)
    assert status.text == "出了點問題：type 必須是以下其中之一：'games', 'human'"
