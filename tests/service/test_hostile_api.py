"""The hostile corpus through the API: the same verdicts as ``menace check``, and none of it
hangs, crashes or stops the service for a student checking at the same time.

Every file of ``tests/corpus/hostile`` is checked twice: by the real command, as in
``tests/check/test_hostile_corpus.py``, and through ``POST /api/v1/checks`` of a real
``menace serve``. The verdicts (status, score, each test's outcome) must agree. Meanwhile
a bystander checks a correct file again and again: every one of those checks is answered,
correctly, and the service is still healthy, with its graders, at the end.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.check.test_hostile_corpus import hostile_files, run_check, slug_of
from tests.service.support import CORRECT, METRICS_TOKEN, LiveService, menace, request
from tests.support import REPO

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]


def _verdict(report: dict[str, Any]) -> tuple[Any, ...]:
    return (
        report["status"],
        report["score"],
        report["max_score"],
        tuple((t["name"], t["outcome"]) for t in report["tests"]),
    )


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")  # what the loader reads such a file as


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[tuple[str, str, Path]]]:
    folder = tmp_path_factory.mktemp("hostile-api")
    jobs = []
    for path in hostile_files():
        data = path.read_bytes().replace(b"REPO = '/work/main'", f"REPO = {str(REPO)!r}".encode())
        copy = folder / path.name
        copy.write_bytes(data)
        jobs.append((path.stem, slug_of(path), copy))
    yield jobs


def test_the_hostile_corpus_gets_the_same_verdicts_and_spares_the_bystander(
    corpus: list[tuple[str, str, Path]], tmp_path: Path, db_url: str
) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        local = dict(
            zip(
                [n for n, _, _ in corpus],
                pool.map(lambda j: run_check(j[2], j[1], tmp_path), corpus),
                strict=True,
            )
        )
    tokens = menace("users", "add", "mallory", "bystander", "--db", db_url).stdout.split()
    mallory, bystander = tokens[1], tokens[3]
    live = LiveService(
        tmp_path, db_url, "--per-student", "500", "--max-queue", "500", "--rate-limit", "10000 per minute"
    ).start()
    stop = threading.Event()
    bystanding: list[tuple[int, Any]] = []

    def bystand() -> None:
        while not stop.is_set():
            status, body, _ = request(
                live.url + "/api/v1/checks?wait=30",
                "POST",
                {"challenge": "after_game", "source": CORRECT.read_text()},
                bystander,
            )
            bystanding.append((status, body))
            stop.wait(1.0)

    def through_api(job: tuple[str, str, Path]) -> dict[str, Any]:
        _, slug, path = job
        body = {"challenge": slug, "filename": path.name, "source": _text(path.read_bytes())}
        status, check, _ = request(live.url + "/api/v1/checks?wait=30", "POST", body, mallory)
        assert status in (200, 202), check
        while check["status"] != "done":
            status, check, _ = request(f"{live.url}{check['url']}?wait=30", token=mallory)
            assert status == 200, check
        return check["report"]  # type: ignore[no-any-return]

    watcher = threading.Thread(target=bystand, daemon=True)
    try:
        watcher.start()
        with ThreadPoolExecutor(max_workers=4) as pool:
            remote = dict(zip([n for n, _, _ in corpus], pool.map(through_api, corpus), strict=True))
        stop.set()
        watcher.join(timeout=60)
        status, health, _ = request(live.url + "/healthz", token=METRICS_TOKEN)
    finally:
        stop.set()
        live.stop()

    differ = {}
    for name, (code, out, err, _) in local.items():
        assert code is not None, f"{name}: menace check did not finish: {err}"
        mine = json.loads(out)
        if _verdict(mine) != _verdict(remote[name]):
            differ[name] = (_verdict(mine), _verdict(remote[name]))
    assert differ == {}
    wrong = [
        (
            s,
            b.get("report")
            and [(t["name"], t["outcome"]) for t in b["report"]["tests"] if t["outcome"] != "passed"],
        )
        for s, b in bystanding
        if s != 200 or not b["report"]["passed"]
    ]
    assert bystanding and wrong == []
    assert status == 200 and health["ok"] and health["dispatcher"]["workers"] >= 1
    assert live.logs().count("Booting worker") == 1  # the web process never died
