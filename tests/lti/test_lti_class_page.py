"""The class page points instructors to the LMS passback table once an LMS is registered."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.service.support import make_app, stop_app

    made = make_app(f"sqlite:///{tmp_path_factory.mktemp('lti-class') / 'service.sqlite3'}")
    try:
        yield made
    finally:
        stop_app(made)


def class_page(app: Any, token: str) -> str:
    from tests.service.support import bearer

    answer = app.test_client().get("/instructor", headers=bearer(token))
    assert answer.status_code == 200
    return str(answer.get_data(as_text=True))


def test_the_class_page_links_to_the_passback_table_only_when_an_lms_is_registered(
    app: Any, tmp_path: Path
) -> None:
    from menace_course.service.lti.registry import PlatformSpec, add_platform
    from tests.service.support import add_user

    _, token = add_user(app, "Carol", instructor=True)
    assert "/lti/grades" not in class_page(app, token)  # no LMS: nothing to send scores to

    with app.extensions["menace"].db.writing() as session:
        add_platform(
            session,
            PlatformSpec(
                "https://lms.example.edu",
                "menace-tool",
                ("deployment-1",),
                "https://lms.example.edu/auth",
                "https://lms.example.edu/token",
                "https://lms.example.edu/jwks",
            ),
        )
    page = class_page(app, token)
    assert '<a href="/lti/grades">Scores sent to the LMS</a>' in page
    table = app.test_client().get("/lti/grades", headers={"Authorization": f"Bearer {token}"})
    assert table.status_code == 200
    assert "open the tool from your course in the LMS" in table.get_data(as_text=True)
