"""The HTML pages: the course, a challenge with its editor and "Check my program", sign-in, the class.

Every page works without JavaScript: the challenge's form posts the textarea, waits a
few seconds for the check and shows the page again with the feedback. With JavaScript,
the check bundle (``static/dist/check.js``, from ``frontend/src/check/``) sends the same form
to the JSON API and shows the feedback in place; the editor bundle (``static/dist/``) turns
the textarea into a code editor when present.

Feedback is shown in a sandboxed ``<iframe srcdoc>``: the document inside is exactly what
``menace check --format html`` prints, and no script can run in it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from markupsafe import Markup

from menace_course import catalog
from menace_course.authoring.public import handed_out_match
from menace_course.catalog import Challenge
from menace_course.errors import CourseError, UnknownChallenge
from menace_course.models import Outcome, SubmissionReport
from menace_course.service.auth import (
    AuthError,
    Who,
    anonymous_ids,
    remember_anonymous,
    require_instructor,
    sign_in,
    sign_out,
    who,
)
from menace_course.service.browser_words import browser_words
from menace_course.service.db.attempts import best_scores, class_table, latest, user_attempts
from menace_course.service.db.people import peek_login_link, role_in, use_login_link, user_by_token
from menace_course.service.db.tables import Attempt, User
from menace_course.service.dispatch.waits import wait_for
from menace_course.service.intake import accept, feedback
from menace_course.service.languages import install, request_language
from menace_course.service.rate_limits import LOGIN_LIMIT, limiter, submission_limit
from menace_course.service.refusal import Refusal
from menace_course.service.state import state

pages = Blueprint("pages", __name__, static_folder="assets", static_url_path="/assets")
# Every page speaks the browser's language where the course has it (service/languages.py).
pages.record_once(lambda setup: install(cast(Flask, setup.app)))
#: How long the no-JavaScript form waits for a check before showing the page anyway.
FORM_WAIT_SECONDS = 10.0
EDITOR_BUNDLE = Path(__file__).resolve().parent / "static" / "dist"


@functools.cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def render_markdown(text: str) -> Markup:
    """A challenge's README as HTML; raw HTML in it is shown as text, never run."""
    return Markup(_markdown().render(text))


def editor_script() -> str | None:
    """The editor bundle (``static/dist/editor.js``, the front end's contract), if it is built."""
    return "dist/editor.js" if (EDITOR_BUNDLE / "editor.js").is_file() else None


def _challenge(slug: str) -> Challenge:
    try:
        return catalog.load_challenge(state().course, slug)
    except UnknownChallenge as error:
        abort(404, description=str(error))
    except CourseError as error:  # the course's own problem: say so, plainly, to everyone
        abort(500, description=f"this challenge cannot be shown: {error}")


def _attempts_of(person: Who, slug: str) -> list[Attempt]:
    with state().db.reading() as db:
        if person.user_id is not None:
            return latest(db, person.context_id, person.user_id, slug)
        found = [db.get(Attempt, i) for i in anonymous_ids()]
        return [a for a in found if a is not None and a.challenge == slug and a.user_id is None]


def _visible_attempt(person: Who, attempt_id: str) -> Attempt:
    with state().db.reading() as db:
        attempt = db.get(Attempt, attempt_id) if len(attempt_id) <= 36 else None
    if attempt is None:
        abort(404, description="no attempt has this id")
    if attempt.user_id is None and attempt_id not in anonymous_ids() and not person.is_instructor:
        abort(404, description="no attempt has this id")
    if not person.may_see(attempt.user_id, attempt.context_id):
        abort(403, description="this attempt is someone else's")
    return attempt


def _may_check(person: Who) -> bool:
    return person.signed_in or bool(current_app.config["MENACE"].open)


@pages.get("/")
def index() -> str:
    """The course's challenges (with this student's best scores)."""
    person = who()
    scores: dict[str, tuple[float, float]] = {}
    if person.user_id is not None:
        with state().db.reading() as db:
            scores = best_scores(db, person.context_id, person.user_id)
    return render_template(
        "index.html", challenges=catalog.load_all(state().course), scores=scores, person=person
    )


def _challenge_page(
    slug: str, code: str | None = None, problem: Refusal | None = None, shown_id: str | None = None
) -> str:
    challenge = _challenge(slug)
    person = who()
    attempts = _attempts_of(person, slug)
    shown = None
    if shown_id:
        shown = _visible_attempt(person, shown_id)
    elif attempts:
        shown = attempts[0]
    if code is None:
        code = attempts[0].source if attempts else _starter(challenge)
    feedback_html = None
    if shown is not None and (report := shown.checked) is not None:
        feedback_html = feedback(state(), report, "html")
    return render_template(
        "challenge.html",
        challenge=challenge,
        readme=render_markdown(_read(challenge.text)),
        code=code,
        filename=f"{slug}.py",
        attempts=attempts,
        shown=shown,
        feedback_html=feedback_html,
        person=person,
        may_check=_may_check(person),
        problem=problem,
        editor=editor_script(),
        check_words=browser_words(request_language()),
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def _starter(challenge: Challenge) -> str:
    return challenge.starter_on_a_page(_read(challenge.starter))


@pages.get("/c/<slug>")
def challenge(slug: str) -> str:
    """A challenge: its task, the editor with the last code, Check my program, and the feedback."""
    return _challenge_page(slug, shown_id=request.args.get("attempt"))


@pages.post("/c/<slug>/check")
@limiter.limit(submission_limit)
def check(slug: str) -> ResponseReturnValue:
    """The form's way (no JavaScript): check, wait a little, and show the page with the feedback."""
    person = who()
    source = request.form.get("source", "")
    if not _may_check(person):
        return redirect(url_for("pages.login", next=url_for("pages.challenge", slug=slug)))
    try:
        attempt = accept(state(), person, slug, f"{slug}.py", source)
    except Refusal as refused:
        return _challenge_page(slug, code=source, problem=refused), refused.status
    if person.user_id is None:
        remember_anonymous(attempt.id)
    wait_for(attempt.id, FORM_WAIT_SECONDS)  # rationed like ?wait (dispatch.waits)
    return redirect(url_for("pages.challenge", slug=slug, attempt=attempt.id) + "#feedback", code=303)


@pages.get("/attempts/<attempt_id>")
def attempt_feedback(attempt_id: str) -> Response:
    """An attempt's feedback, as the very document ``menace check --format html`` prints."""
    person = who()
    attempt = _visible_attempt(person, attempt_id)
    report = attempt.checked
    if report is None:
        response = Response(render_template("pending.html", attempt=attempt), status=202)
        response.headers["Refresh"] = "2"
        return response
    document = feedback(state(), report, "html")
    if person.is_instructor:
        return Response(_instructors_attempt(person, attempt, document), mimetype="text/html")
    response = Response(document, mimetype="text/html")
    response.headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    return response


def _instructors_attempt(person: Who, attempt: Attempt, document: str) -> str:
    """An attempt as an instructor sees it: whose, when, the way to the others and the code,
    the feedback the student read, and what the student's view left out of the record."""
    challenge = _challenge(attempt.challenge)
    with state().db.reading() as db:
        student = db.get(User, attempt.user_id) if attempt.user_id is not None else None
        siblings = (
            user_attempts(db, attempt.context_id, attempt.user_id, attempt.challenge)
            if attempt.user_id is not None
            else [attempt]
        )
    ids = [a.id for a in siblings]
    at = ids.index(attempt.id) if attempt.id in ids else 0
    report = SubmissionReport.from_dict(attempt.report or {})
    unseen = [t for t in report.tests if t.outcome is not Outcome.PASSED and t.detail is not None]
    return render_template(
        "attempt.html",
        challenge=challenge,
        attempt=attempt,
        student_name=student.name if student is not None else "an anonymous visitor",
        siblings=siblings,
        number=at + 1,
        previous=siblings[at - 1] if at > 0 else None,
        following=siblings[at + 1] if at + 1 < len(siblings) else None,
        feedback_html=document,
        status=report.status.value,
        unseen=unseen,
        person=person,
    )


@pages.get("/attempts/<attempt_id>/source")
def attempt_source(attempt_id: str) -> Response:
    """The code of an attempt, as plain text."""
    attempt = _visible_attempt(who(), attempt_id)
    response = Response(attempt.source, mimetype="text/plain")
    response.headers["Content-Security-Policy"] = "default-src 'none'"
    return response


# -- signing in -------------------------------------------------------------------------


def _safe_next(target: str | None) -> str:
    """Only a path on this site (never another site: no open redirect)."""
    if not target:
        return url_for("pages.index")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return url_for("pages.index")
    return target


@pages.route("/login", methods=["GET", "POST"])
@limiter.limit(LOGIN_LIMIT, methods=["POST"], key_func=lambda: f"addr:{request.remote_addr}")
def login() -> ResponseReturnValue:
    """Sign in by pasting a token (``menace users add`` gives one)."""
    target = _safe_next(request.values.get("next"))
    if request.method == "GET":
        return render_template("login.html", next=target, problem=None)
    token = request.form.get("token", "").strip()
    with state().db.reading() as db:
        user = user_by_token(db, token) if token else None
    if user is None:
        return render_template("login.html", next=target, problem="bad_token"), 401
    sign_in(user, state().local_context_id)
    return redirect(target, code=303)


#: Where a one-time link's code waits in the browser's session between the link and its button.
LINK_CODE = "login_code"


def _no_referrer(response: ResponseReturnValue, status: int | None = None) -> Response:
    """``response`` with ``Referrer-Policy: no-referrer`` (a login code must never travel on)."""
    made = current_app.make_response(response)
    if status is not None:
        made.status_code = status
    made.headers["Referrer-Policy"] = "no-referrer"
    return made


def _link_gone() -> Response:
    page = render_template("login.html", next="/", problem="link_gone")
    return _no_referrer(page, 410)


@pages.get("/login/<code>")
def login_link(code: str) -> Response:
    """A one-time sign-in link: keep its code in this browser's session and leave its URL at once.

    The code is in the address only for this one redirect: the page with the button
    (:func:`login_link_page`) has an address without it, so neither its Referer (to its
    styles, or to a link on it) nor a history entry holds the code; and every answer says
    ``Referrer-Policy: no-referrer``. Looking at the link spends nothing (link previews),
    the button does.
    """
    with state().db.reading() as db:
        user = peek_login_link(db, code)
    if user is None:
        return _link_gone()
    session[LINK_CODE] = code
    return _no_referrer(redirect(url_for("pages.login_link_page"), code=303))


@pages.route("/login/link", methods=["GET", "POST"])
@limiter.limit(LOGIN_LIMIT, methods=["POST"], key_func=lambda: f"addr:{request.remote_addr}")
def login_link_page() -> Response:
    """The button that spends the link whose code this browser's session holds (see above)."""
    code = session.get(LINK_CODE)
    if not isinstance(code, str):
        return _link_gone()
    if request.method == "GET":
        with state().db.reading() as db:
            user = peek_login_link(db, code)
        if user is None:
            session.pop(LINK_CODE, None)
            return _link_gone()
        return _no_referrer(render_template("login_link.html", name=user.name))
    with state().db.writing() as db:
        found: User | None = use_login_link(db, code)
    session.pop(LINK_CODE, None)
    if found is None:
        return _link_gone()
    sign_in(found, state().local_context_id)
    return _no_referrer(redirect(url_for("pages.index"), code=303))


@pages.post("/logout")
def logout() -> ResponseReturnValue:
    """End the browser session."""
    sign_out()
    return redirect(url_for("pages.index"), code=303)


# -- instructors ------------------------------------------------------------------------


def _instructor() -> Who:
    try:
        return require_instructor()
    except AuthError as error:
        if error.status == 401:
            abort(redirect(url_for("pages.login", next=request.path)))
        abort(403, description=str(error))


@pages.get("/instructor")
def instructor() -> str:
    """The instructor's start: the class table of every student (the roster) by challenge, best scores."""
    person = _instructor()
    challenges = catalog.load_all(state().course)
    with state().db.reading() as db:
        tables = {c.slug: class_table(db, person.context_id, c.slug) for c in challenges}
    best = {slug: {r.user_id: r for r in rows} for slug, rows in tables.items()}
    names = {r.user_id: r.name for rows in tables.values() for r in rows}
    students = sorted(names.items(), key=lambda item: (item[1].casefold(), item[0]))
    return render_template(
        "instructor.html", challenges=challenges, students=students, best=best, person=person
    )


@pages.get("/instructor/c/<slug>")
def class_view(slug: str) -> str:
    """One challenge's class table: best and latest score, attempts, last time, links."""
    person = _instructor()
    challenge = _challenge(slug)
    with state().db.reading() as db:
        rows = class_table(db, person.context_id, slug)
    return render_template("class_table.html", challenge=challenge, rows=rows, person=person)


@pages.get("/instructor/c/<slug>/<int:user_id>")
def student_view(slug: str, user_id: int) -> str:
    """Every attempt of one student at one challenge, with links to feedback and code."""
    person = _instructor()
    challenge = _challenge(slug)
    with state().db.reading() as db:
        student = db.get(User, user_id)
        member = role_in(db, user_id, person.context_id) is not None
        attempts = user_attempts(db, person.context_id, user_id, slug)
    if student is None or not (member or attempts):  # another course's student is no one here
        abort(404, description="no such student in your course")
    handed_out = {a.id: handed_out_match(state().course, slug, a.source) for a in attempts}
    return render_template(
        "student_attempts.html",
        challenge=challenge,
        student=student,
        attempts=attempts,
        person=person,
        handed_out=handed_out,
    )


def _may_see_health_details() -> bool:
    """An instructor (session or token), or the holder of the metrics token (``metrics_token``)."""
    from menace_course.service.metrics import may_read

    return may_read(state().config.metrics_token)


@pages.get("/healthz")
def healthz() -> tuple[Response, int]:
    """Is the service well: the database answers and the dispatcher has live workers.

    Anyone is told ``{"ok": ...}`` (and 200 or 503); the details (the queue's depth, the
    workers and their hosts) only an instructor or the holder of the metrics token.
    """
    from sqlalchemy import text

    try:
        with state().db.reading() as db:
            db.execute(text("SELECT 1"))
        database = True
    except Exception:
        database = False
    dispatcher = state().dispatcher.health()
    ok = database and bool(dispatcher.get("ok"))
    status = 200 if ok else 503
    if not _may_see_health_details():
        return jsonify({"ok": ok}), status
    return jsonify({"ok": ok, "database": database, "dispatcher": dispatcher}), status
