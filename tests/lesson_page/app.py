"""A small Flask app holding only the lesson page, for its tests.

The service's own app (``menace serve``) registers the same blueprint; this one serves the
same static folder and reads the same settings, so the page behaves the same in both.
"""

from __future__ import annotations

from typing import Any

from tests.support import REPO


def make_app(**settings: Any) -> Any:
    from flask import Flask

    from menace_course.service.lesson import blueprint
    from menace_course.service.static_files import serve_static_well

    app = Flask(
        "lesson_test",
        static_folder=str(REPO / "menace_course" / "service" / "static"),
        static_url_path="/static",
    )
    app.config.update({"MENACE_COURSE": str(REPO), "MENACE_SANDBOX": "auto", **settings})
    serve_static_well(app)  # compressed, cached by content, a favicon: as in menace serve
    app.register_blueprint(blueprint)
    return app
