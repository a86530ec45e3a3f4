"""Static files as a browser should get them: compressed, cached by content, and a favicon.

:func:`serve_static_well` sets up an app (the service's, or any app that registers the
lesson page) so that:

* **HTML, CSS, JavaScript and SVG go out compressed** (Brotli or gzip, as the browser
  asks) by `Flask-Compress <https://github.com/colour-science/flask-compress>`_; small
  answers (under 500 bytes) and JSON are sent as they are;
* **the built bundles are cached for good**: ``url_for("static", filename="dist/...")``
  adds ``?v=<the file's sha256, 12 digits>`` from ``static/dist/manifest.json`` (written
  by ``frontend/build.mjs``), and an answer for exactly that version says
  ``Cache-Control: public, max-age=31536000, immutable``. A new build has new digests, so
  new addresses; any other static answer (no ``v``, or an old one) says ``no-cache``;
* **HTML is never kept without asking again**: a page without a ``Cache-Control`` of its
  own gets ``no-cache`` (a personal page keeps the ``no-store`` the service gives it);
* ``/favicon.ico`` is a real icon (``assets/favicon.ico``), on every page.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Flask, Response, request, send_file
from flask_compress import Compress

__all__ = ["BUNDLES", "FAVICON", "IMMUTABLE", "bundle_versions", "serve_static_well"]

HERE = Path(__file__).resolve().parent
#: The built bundles, and the manifest that holds each file's sha256.
BUNDLES = HERE / "static" / "dist"
FAVICON = HERE / "assets" / "favicon.ico"
#: What a content-addressed file says: keep it a year, never ask again.
IMMUTABLE = "public, max-age=31536000, immutable"
#: What goes out compressed (JSON stays plain: API answers are small, and personal).
COMPRESSED_TYPES = ["text/html", "text/css", "text/javascript", "application/javascript", "image/svg+xml"]


class _Compress(Compress):
    """Flask-Compress, except for a part of a file (206): a range is of the bytes as stored."""

    def after_request(self, response: Response | None) -> Response:
        if response is not None and response.status_code == 206:
            return response
        return super().after_request(response)


def bundle_versions(folder: Path = BUNDLES) -> dict[str, str]:
    """``{"dist/editor.js": "25bcdd768a61", ...}``: each built file's version (empty if unbuilt)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        files = manifest["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    if not isinstance(files, dict):
        return {}
    return {f"dist/{name}": str(digest)[:12] for name, digest in files.items() if isinstance(digest, str)}


def serve_static_well(app: Flask, bundles: Path = BUNDLES) -> None:
    """Compression, caching by content and ``/favicon.ico`` for ``app`` (see the module's doc).

    Call it before other ``after_request`` functions are registered: Flask runs them last
    registered first, so the headers the app sets itself (``no-store``) come first and
    this only fills in what is left, and compression runs last of all.
    """
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED_TYPES)
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    app.config.setdefault("COMPRESS_ALGORITHM_STREAMING", ["br", "gzip"])  # static files are streamed
    _Compress(app)
    known: dict[str, Any] = {"stamp": None, "versions": {}}

    def current() -> dict[str, str]:
        """The versions, read again when the manifest changes (a rebuild while serving)."""
        try:
            stat = (bundles / "manifest.json").stat()
            stamp: Any = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamp = None
        if stamp != known["stamp"]:
            known["stamp"], known["versions"] = stamp, bundle_versions(bundles)
        versions: dict[str, str] = known["versions"]
        return versions

    def add_version(endpoint: str, values: dict[str, Any]) -> None:
        versions = current()
        if endpoint == "static" and values.get("filename") in versions:
            values.setdefault("v", versions[values["filename"]])

    def cache_headers(response: Response) -> Response:
        endpoint = request.endpoint or ""
        if endpoint.rsplit(".", 1)[-1] == "static":  # the bundles, and the pages' own assets/
            filename = (request.view_args or {}).get("filename")
            wanted = current().get(filename) if isinstance(filename, str) else None
            fresh = wanted is not None and request.args.get("v") == wanted and response.status_code == 200
            response.headers["Cache-Control"] = IMMUTABLE if fresh else "no-cache"
        elif response.mimetype == "text/html":
            response.headers.setdefault("Cache-Control", "no-cache")
        return response

    def favicon() -> Response:
        return send_file(FAVICON, mimetype="image/vnd.microsoft.icon", max_age=86400)

    app.url_defaults(add_version)
    app.after_request(cache_headers)
    app.add_url_rule("/favicon.ico", "favicon", favicon)
