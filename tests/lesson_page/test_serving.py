"""How the pages and bundles travel: compressed, cached by their content, and a favicon.

In the service's own app (``create_app``), as ``menace serve`` serves them: a browser that
accepts Brotli or gzip gets the page and the bundles compressed; the bundles' addresses
carry their content's digest, so a browser keeps them for a year without asking again,
while HTML is asked for again every time; ``/favicon.ico`` is a real icon.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("menace_course.service.app")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.service.support import make_app, stop_app

    app = make_app(f"sqlite:///{tmp_path_factory.mktemp('serving-db') / 'service.sqlite3'}", open=True)
    try:
        yield app
    finally:
        stop_app(app)


def bundle_addresses(page: str) -> list[str]:
    return re.findall(r'(?:src|href)="(/static/dist/[^"]+)"', page)


@pytest.mark.parametrize("path", ["/lesson", "/c/after_game"])
def test_pages_name_each_bundle_by_its_content_and_are_never_kept_unasked(service: Any, path: str) -> None:
    from menace_course.service.static_files import bundle_versions

    client = service.test_client()
    answer = client.get(path)
    assert answer.status_code == 200
    assert answer.headers["Cache-Control"] in ("no-cache", "no-store")
    addresses = bundle_addresses(answer.get_data(as_text=True))
    assert addresses, "the page loads the built bundles"
    versions = bundle_versions()
    for address in addresses:
        name, _, version = address.removeprefix("/static/").partition("?v=")
        assert version == versions[name], f"{address} does not carry {name}'s digest"
        bundle = client.get(address)
        assert bundle.status_code == 200
        assert bundle.headers["Cache-Control"] == "public, max-age=31536000, immutable"


def test_a_bundle_asked_for_without_its_digest_or_with_an_old_one_is_not_kept_for_good(service: Any) -> None:
    client = service.test_client()
    for address in ("/static/dist/lesson.js", "/static/dist/lesson.js?v=000000000000"):
        answer = client.get(address)
        assert answer.status_code == 200
        assert answer.headers["Cache-Control"] == "no-cache"


@pytest.mark.parametrize("encoding", ["br", "gzip"])
def test_javascript_css_and_html_go_out_compressed_as_the_browser_asks(service: Any, encoding: str) -> None:
    import brotli

    client = service.test_client()
    plain_page = client.get("/lesson").get_data()
    page = client.get("/lesson", headers={"Accept-Encoding": encoding})
    assert page.headers["Content-Encoding"] == encoding
    assert "Accept-Encoding" in page.headers["Vary"]
    addresses = bundle_addresses(plain_page.decode("utf-8"))
    assert any(a.endswith(".js") or ".js?" in a for a in addresses)
    assert any(".css" in a for a in addresses)
    unpack = brotli.decompress if encoding == "br" else gzip.decompress
    for address in addresses:
        plain = client.get(address).get_data()
        packed = client.get(address, headers={"Accept-Encoding": f"{encoding}, identity"})
        assert packed.headers["Content-Encoding"] == encoding, address
        body = packed.get_data()
        assert unpack(body) == plain, address
        if len(plain) > 20_000:
            assert len(body) < len(plain) / 2, f"{address}: {len(body)} of {len(plain)} bytes"
        assert packed.headers["Cache-Control"] == "public, max-age=31536000, immutable"


def test_a_browser_that_accepts_no_compression_gets_the_bytes_as_they_are(service: Any) -> None:
    client = service.test_client()
    answer = client.get("/lesson", headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in answer.headers
    assert answer.get_data(as_text=True).lstrip().startswith("<!doctype html>")


def test_every_page_has_a_real_favicon(service: Any) -> None:
    client = service.test_client()
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.mimetype == "image/vnd.microsoft.icon"
    assert icon.get_data()[:4] == b"\x00\x00\x01\x00", "an ICO file's header"
    assert 'rel="icon" href="/favicon.ico"' in client.get("/c/after_game").get_data(as_text=True)


def test_the_lesson_app_on_its_own_serves_the_same_way() -> None:
    pytest.importorskip("flask")
    from tests.lesson_page.app import make_app

    client = make_app().test_client()
    assert client.get("/favicon.ico").status_code == 200
    page = client.get("/lesson", headers={"Accept-Encoding": "gzip"})
    assert page.headers["Content-Encoding"] == "gzip"
    assert page.headers["Cache-Control"] == "no-cache"


def test_a_rebuild_while_serving_gives_the_bundle_a_new_address(tmp_path: Any) -> None:
    """The old address must never be kept for good with the new bytes behind it."""
    import json

    from flask import Flask, url_for

    from menace_course.service.static_files import IMMUTABLE, serve_static_well

    dist = tmp_path / "dist"
    dist.mkdir()

    def build(text: str, digest: str) -> None:
        (dist / "app.js").write_text(text)
        # padded by the digest's length: the two manifests differ in size even within one mtime tick
        (dist / "manifest.json").write_text(json.dumps({"files": {"app.js": digest}}) + " " * len(digest))

    build("one()", "a" * 64)
    app = Flask("rebuild_test", static_folder=str(tmp_path), static_url_path="/static")
    serve_static_well(app, bundles=dist)
    with app.test_request_context():
        first = url_for("static", filename="dist/app.js")
    assert first == "/static/dist/app.js?v=" + "a" * 12
    client = app.test_client()
    assert client.get(first).headers["Cache-Control"] == IMMUTABLE
    build("two()", "b" * 64 + "c")
    with app.test_request_context():
        second = url_for("static", filename="dist/app.js")
    assert second == "/static/dist/app.js?v=" + "b" * 12
    assert client.get(first).headers["Cache-Control"] == "no-cache", "the old address now has other bytes"
    assert client.get(second).headers["Cache-Control"] == IMMUTABLE


def test_a_range_of_a_bundle_is_sent_as_the_stored_bytes(service: Any) -> None:
    client = service.test_client()
    whole = client.get("/static/dist/lesson.js").get_data()
    part = client.get("/static/dist/lesson.js", headers={"Range": "bytes=0-99", "Accept-Encoding": "gzip"})
    assert part.status_code == 206
    assert "Content-Encoding" not in part.headers
    assert part.get_data() == whole[:100]
