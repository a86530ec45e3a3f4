"""The student pages and their feedback speak the browser's language (Accept-Language), else English."""

from __future__ import annotations

import json
import re
from typing import Any

from menace_course.service.browser_words import WORDS
from tests.service.support import BUGGY, add_user, bearer
from tests.support import js_words

ZH = {"Accept-Language": "zh-TW,zh;q=0.9,en;q=0.8"}


def test_accept_language_zh_tw_gives_the_index_and_a_challenge_page_in_chinese(client: Any) -> None:
    page = client.get("/", headers=ZH).get_data(as_text=True)
    assert '<html lang="zh-TW">' in page
    assert "<h1>火柴盒學得會下井字棋嗎？</h1>" in page
    assert "選一個題目，寫好你的函式，再按<strong>檢查我的程式</strong>" in page
    challenge = client.get("/c/after_game", headers=ZH).get_data(as_text=True)
    assert '<button type="submit" id="check-button">檢查我的程式</button>' in challenge


def test_a_language_with_no_catalog_or_none_asked_for_gives_english(client: Any) -> None:
    for headers in ({"Accept-Language": "fr-FR,de;q=0.5"}, {}):
        page = client.get("/c/after_game", headers=headers).get_data(as_text=True)
        assert '<html lang="en">' in page
        assert '<button type="submit" id="check-button">Check my program</button>' in page


def test_a_wrong_token_is_refused_in_the_pages_language(client: Any) -> None:
    page = client.get("/login", headers=ZH).get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert csrf
    answer = client.post("/login", data={"csrf_token": csrf.group(1), "token": "nope"}, headers=ZH)
    assert answer.status_code == 401 and "這個權杖無效。" in answer.get_data(as_text=True)


def test_the_apis_feedback_is_in_the_language_asked_for_and_the_report_stays_english(
    service_app: Any, client: Any
) -> None:
    _, token = add_user(service_app)
    body = {"challenge": "after_game", "source": BUGGY.read_text()}
    headers = {**bearer(token), **ZH}
    answer = client.post("/api/v1/checks?wait=30&format=text", json=body, headers=headers).get_json()
    assert "題目的範例（3 個中有" in answer["feedback"]
    assert re.search(r"得分 [\d.]+/15\.0：15 項檢查中有 \d+ 項通過。", answer["feedback"])
    assert all(re.fullmatch(r"[ -~]*", t["message"]) for t in answer["report"]["tests"])  # data, in English


def test_a_language_chosen_on_a_page_is_kept_over_the_browsers(client: Any) -> None:
    chosen = client.get("/?lang=zh_TW", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "<h1>火柴盒學得會下井字棋嗎？</h1>" in chosen and 'href="/?lang=en"' in chosen
    later = client.get("/c/after_game", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<button type="submit" id="check-button">檢查我的程式</button>' in later
    back = client.get("/?lang=en", headers=ZH).get_data(as_text=True)
    assert "<h1>Can Matchboxes Learn to Play?</h1>" in back


def _check_words(page: str) -> dict[str, str]:
    found = re.search(r'<script type="application/json" id="check-words">(.*?)</script>', page, re.S)
    assert found, "the challenge page gives the browser's check client its words"
    words: dict[str, str] = json.loads(found.group(1))
    return words


def test_the_browsers_check_client_speaks_the_pages_language(client: Any) -> None:
    chinese = _check_words(client.get("/c/after_game", headers=ZH).get_data(as_text=True))
    assert chinese["checking"] == "檢查中…"
    assert chinese["checkingStatus"] == "檢查中…（%(status)s）"
    assert chinese["somePass"] == "%(n)s 項檢查中有 %(passed)s 項通過。"
    english = _check_words(client.get("/c/after_game").get_data(as_text=True))
    assert english == WORDS  # the message ids are the English sentences
    untranslated = [key for key, sentence in chinese.items() if sentence == english[key]]
    assert untranslated == []


def test_the_servers_words_are_the_clients_own_keys_and_english_sentences() -> None:
    # client.js keeps the English table as its default (the lesson page, the unit tests):
    # the two must not drift apart, or a page would send words the client never reads.
    assert js_words("src/check/client.js") == WORDS
