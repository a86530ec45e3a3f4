"""A whole session, as students and an instructor would have it, leaks no hidden test and no
reference: every response (bodies and headers; the check pages, the API, the lesson page
and its API), every line the service and its grader processes logged, what ``menace check
--server`` printed and what ``menace serve export`` wrote are searched for the hidden
tests' inputs and answers and for the reference's code. And the course's own files are
exactly as they were: the service only reads them.

The course is a copy of this one with canaries added: a hidden test whose input and
answer appear nowhere else, a hidden test with a bug that raises with its input in the
message (a grader error, which the service logs), and a line in the reference that
appears nowhere else. A submission that tries to smuggle its inputs out (printing them,
raising them, returning them), and a lesson program that tries to read the hidden tests
and the reference, are among those run.
"""

from __future__ import annotations

import ast
import hashlib
import http.cookiejar
import json
import re
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.service.support import LiveService, menace, request
from tests.support import copy_course

pytestmark = pytest.mark.slow

CANARY_INPUT = "[91, 92, 93, 94, 95, 96, 97, 98, 99]"
CANARY_ANSWER = "[91, 92, 93, 97, 95, 96, 97, 98, 99]"
CANARY_REFERENCE = "menace-reference-canary-5f1c0e"
CANARY_BUG = "[81, 82, 83, 84, 85, 86, 87, 88, 89]"
CANARY_TEST = f'''
from menace_course import expect_equal, hint


@hint("after_game_rules")
def test_one_more_box(submission):
    """Handles one more box."""
    expect_equal(submission.after_game({CANARY_INPUT}, 3, "win"), {CANARY_ANSWER})


def test_a_grader_bug(submission):
    """Survives a bug in the grader."""
    box = {CANARY_BUG}
    raise RuntimeError(f"grader bug: no rule for {{box}}")
'''
SMUGGLER = """
def after_game(beads, square, result):
    print("my input was", beads, square, result)
    if sum(beads) > 100:
        raise ValueError(f"input {beads!r} square {square}")
    new = list(beads)
    new[square] += 3 if result == "win" else (1 if result == "draw" else -1)
    return new
"""
#: A Step program, as a student may change it on /lesson, that goes looking for the course.
PEEKER = """
import os
print("peeker ran")
for path in {paths!r}:
    try:
        with open(path) as file:
            print(file.read())
    except OSError as error:
        print("cannot read", type(error).__name__)
"""


def _course_copy(folder: Path) -> Path:
    course = copy_course(folder / "course")
    (course / "hidden_tests" / "after_game" / "test_canary.py").write_text(CANARY_TEST)
    reference = course / "reference" / "after_game.py"
    reference.write_text(reference.read_text() + f"\n_CANARY = {CANARY_REFERENCE!r}  # never shown\n")
    return course


def _fingerprint(course: Path) -> dict[str, str]:
    return {
        str(p.relative_to(course)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(course.rglob("*"))
        if p.is_file() and ".menace" not in p.parts and "__pycache__" not in p.parts
    }


def _public_text(course: Path) -> str:
    """Everything a student may see anyway: the challenges' texts, examples and starters, the wording,
    and the lesson's Step programs (shown on /lesson and in the kit: lesson content, not answers)."""
    parts = [p.read_text(errors="replace") for p in (course / "challenges").rglob("*") if p.is_file()]
    parts += [p.read_text(errors="replace") for p in sorted((course / "reference" / "steps").glob("*.py"))]
    parts += [
        p.read_text(errors="replace") for p in (course / "feedback_templates").rglob("*") if p.is_file()
    ]
    return "\n".join(parts)


def _secrets(course: Path, public: str) -> set[str]:
    """Hidden tests' literal inputs and answers, and the references' lines, that are nowhere public."""
    found = {CANARY_INPUT, CANARY_ANSWER, CANARY_REFERENCE, CANARY_BUG, "submission.after_game([91"}
    for path in (course / "hidden_tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.List | ast.Tuple | ast.Dict | ast.Set) and len(ast.unparse(node)) >= 20:
                found.add(ast.unparse(node))
    for path in (course / "reference").glob("*.py"):
        for line in path.read_text().splitlines():
            line = line.strip()
            if len(line) >= 30 and not line.startswith(("#", '"""', "def ")):
                found.add(line)
    return {s for s in found if s not in public}


class Browser:
    """A cookie-keeping HTTP client, as a browser would be (forms with their CSRF token)."""

    def __init__(self, base: str, seen: list[str]) -> None:
        self.base = base
        self.seen = seen
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def open(self, path: str, form: dict[str, str] | None = None) -> str:
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        try:
            with self.opener.open(self.base + path, data=data, timeout=60) as response:
                body = response.read().decode("utf-8", "replace")
                headers = str(response.headers)
        except urllib.error.HTTPError as error:
            body, headers = error.read().decode("utf-8", "replace"), str(error.headers)
        self.seen += [body, headers]
        return body

    def post_json(self, path: str, body: dict[str, Any], csrf: str) -> str:
        """A request as the lesson page's script sends it (JSON, with the page's CSRF token)."""
        headers = {"Content-Type": "application/json", "X-CSRFToken": csrf}
        data = json.dumps(body).encode()
        try:
            with self.opener.open(
                urllib.request.Request(self.base + path, data=data, headers=headers), timeout=120
            ) as response:
                text, status = response.read().decode("utf-8", "replace"), response.status
                headers_seen = str(response.headers)
        except urllib.error.HTTPError as error:
            text, status = error.read().decode("utf-8", "replace"), error.code
            headers_seen = str(error.headers)
        self.seen += [text, headers_seen]
        assert status == 200, text[:500]
        return text

    def post_form(self, path: str, fields: dict[str, str]) -> str:
        page = self.open(path if not path.endswith("/check") else path.rsplit("/", 1)[0])
        token = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert token, page[:500]
        return self.open(path, {"csrf_token": token.group(1), **fields})


def test_a_whole_session_shows_no_hidden_input_answer_or_reference(tmp_path: Path, db_url: str) -> None:
    course = _course_copy(tmp_path)
    before = _fingerprint(course)
    public = _public_text(course)
    student = menace("users", "add", "alice", "--course", str(course), "--db", db_url).stdout.split()[1]
    menace("users", "add", "--instructor", "carol", "--course", str(course), "--db", db_url)
    seen: list[str] = []
    live = LiveService(
        tmp_path, db_url, "--per-student", "50", "--rate-limit", "1000 per minute", course=course
    ).start()
    try:
        link = menace("users", "link", "carol", "--url", live.url, "--course", str(course), "--db", db_url)
        seen.append(link.stdout)
        submissions: dict[str, list[Path]] = {
            c.name: sorted((c / "wrong").glob("*.py")) for c in sorted((course / "challenges").iterdir())
        }
        smuggler = tmp_path / "after_game.py"
        smuggler.write_text(SMUGGLER)
        submissions["after_game"].insert(0, smuggler)

        api_ids = []
        for slug, files in submissions.items():
            for path in files:
                body: dict[str, Any] = {"challenge": slug, "filename": path.name, "source": path.read_text()}
                status, check, headers = request(
                    live.url + "/api/v1/checks?wait=30&format=text", "POST", body, student
                )
                assert status == 200, check
                seen += [str(check), str(headers)]
                api_ids.append(check["id"])
                for query in ("?format=markdown", "?format=html", ""):
                    seen.append(str(request(f"{live.url}/api/v1/checks/{check['id']}{query}", token=student)))
        smuggled = api_ids[0]
        seen.append(str(request(live.url + "/api/v1/openapi.json")))
        seen.append(str(request(live.url + "/api/v1/challenges")))

        browser = Browser(live.url, seen)
        browser.open("/")
        browser.post_form("/login", {"token": student, "next": "/"})
        for slug, files in submissions.items():
            browser.open(f"/c/{slug}")
            browser.post_form(f"/c/{slug}/check", {"source": files[0].read_text()})
        for attempt_id in api_ids[:5]:
            browser.open(f"/c/after_game?attempt={attempt_id}")
            browser.open(f"/attempts/{attempt_id}")
            browser.open(f"/attempts/{attempt_id}/source")
        browser.open("/instructor")  # a student: refused
        browser.open("/nowhere")

        lesson = browser.open("/lesson")
        csrf = re.search(r'<meta name="csrf-token" content="([^"]+)"', lesson)
        assert csrf, lesson[:500]
        games = {"seed": 1, "log": [], "action": {"type": "games", "count": 20, "opponent": "perfect"}}
        played = json.loads(browser.post_json("/lesson/api/widget", games, csrf.group(1)))
        browser.post_json(
            "/lesson/api/widget", {"seed": 1, "log": played["log"], "boxes": True}, csrf.group(1)
        )
        hidden = course / "hidden_tests" / "after_game" / "test_canary.py"
        peeker = PEEKER.format(paths=[str(hidden), str(course / "reference" / "after_game.py")])
        ran = json.loads(browser.post_json("/lesson/api/run", {"step": 3, "source": peeker}, csrf.group(1)))
        assert "peeker ran" in ran["printed"], ran
        step = (course / "reference" / "steps" / "step3.py").read_text()
        browser.post_json("/lesson/api/run", {"step": 3, "source": step}, csrf.group(1))

        teacher = Browser(live.url, seen)
        code_path = urllib.parse.urlsplit(link.stdout.split()[1]).path
        teacher.post_form(code_path, {})
        for slug in submissions:
            table = teacher.open(f"/instructor/c/{slug}")
            for user in set(re.findall(rf"/instructor/c/{slug}/(\d+)", table)):
                teacher.open(f"/instructor/c/{slug}/{user}")
        teacher.open(f"/attempts/{smuggled}")

        kit = menace(
            "check", str(smuggler), "--server", live.url, cwd=tmp_path, env={"MENACE_TOKEN": student}
        )
        seen += [kit.stdout, kit.stderr]
    finally:
        live.stop()
    out = tmp_path / "export"
    exported = menace(
        "serve",
        "export",
        "--challenge",
        "after_game",
        "--out",
        str(out),
        "--course",
        str(course),
        "--db",
        db_url,
    )
    assert exported.returncode == 0, exported.stderr
    seen += [exported.stdout, exported.stderr]
    seen += [p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()]
    seen.append(live.logs())

    everything = "\n".join(seen)
    # Controls: the feedback was captured (a visible example's call, the canary test's title,
    # the service's log lines), and there are secrets to look for.
    assert "after_game([4, 4, 0, 0, 4, 0, 0, 0, 0], 4, 'win')" in everything
    assert "Handles one more box" in everything
    assert "GET /c/after_game" in everything and "GET /lesson" in everything
    assert "peeker ran" in everything and '"tallies"' in everything  # the lesson's API answered
    logs = live.logs()
    assert "the grader failed" in logs and "RuntimeError" in logs  # the grader bug was logged
    secrets = _secrets(course, public)
    assert {CANARY_INPUT, CANARY_ANSWER, CANARY_REFERENCE} <= secrets and len(secrets) > 50
    leaks = sorted(s for s in secrets if s in everything)
    assert leaks == []
    assert _fingerprint(course) == before  # the course is read, never written
