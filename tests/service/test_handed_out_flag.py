"""The instructor's page of a student's attempts flags one that is a file we hand out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from menace_course.lesson.program_files import program_files
from tests.service.support import add_user, bearer
from tests.service.test_pages import _sign_in

REPO = Path(__file__).resolve().parents[2]


def test_an_attempt_that_is_step1_is_flagged_on_the_instructors_page(service_app: Any, client: Any) -> None:
    student_id, student = add_user(service_app, name="ada")
    _, teacher = add_user(service_app, name="teacher", instructor=True)
    step1 = program_files(REPO / "reference" / "steps" / "step1.py")["step1.py"]
    for source in (step1, (REPO / "reference" / "name.py").read_text(encoding="utf-8")):
        answer = client.post(
            "/api/v1/checks?wait=30", json={"challenge": "name", "source": source}, headers=bearer(student)
        )
        assert answer.status_code in (200, 201, 202), answer.get_data(as_text=True)
    teacher_client = service_app.test_client()
    _sign_in(teacher_client, teacher)
    page = teacher_client.get(f"/instructor/c/name/{student_id}").get_data(as_text=True)
    assert page.count("needs review: matches a file handed out: step1.py (menace start step1)") == 1, page
