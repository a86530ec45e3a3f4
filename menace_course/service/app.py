"""``create_app(config)``: the Flask app of the check service, with its database and dispatcher.

It brings the database to the newest migration, makes (once) the key that signs session
cookies, starts the dispatcher with every accepted attempt the database still has as
unfinished, and registers the pages, the JSON API and their error handling. Blueprints
of other parts (the lesson page, LTI) register through :func:`register_blueprints`.

Security defaults: CSRF on every form (Flask-WTF), session cookies ``HttpOnly`` and
``SameSite=Lax`` and ``Secure`` whenever the request came over HTTPS (behind a proxy, with
``--behind-proxy``), a body size limit, per-user rate limits, and a Content Security
Policy that allows only the service's own scripts.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, g, render_template, request, session
from flask.sessions import SecureCookieSessionInterface
from flask_wtf.csrf import CSRFProtect
from sqlalchemy.exc import IntegrityError

from menace_course.course import find_course
from menace_course.service.config import ServiceConfig
from menace_course.service.db.attempts import unfinished
from menace_course.service.db.engine import Database
from menace_course.service.db.people import context_for
from menace_course.service.db.tables import StoredValue
from menace_course.service.dispatch import Dispatcher, make_dispatcher
from menace_course.service.dispatch.base import CheckJob
from menace_course.service.inputs import printable, refuse_malformed
from menace_course.service.metrics import CountingRecorder
from menace_course.service.metrics import register as register_metrics
from menace_course.service.rate_limits import limiter, runs_code, seconds_until_allowed, widget_limited
from menace_course.service.refusal import Refusal, as_refusal, json_answer
from menace_course.service.state import DatabaseRecorder, ServiceState
from menace_course.service.static_files import serve_static_well

log = logging.getLogger("menace.service")
HERE = Path(__file__).resolve().parent
csrf = CSRFProtect()

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "frame-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'self'; object-src 'none'"
)


class SessionCookies(SecureCookieSessionInterface):
    """Session cookies that are ``Secure`` whenever the request itself came over HTTPS."""

    def get_cookie_secure(self, app: Flask) -> bool:
        """Secure behind HTTPS (a reverse proxy's X-Forwarded-Proto counts with --behind-proxy)."""
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure


def _secret_key(db: Database) -> str:
    """The key that signs session cookies: made once, kept in the database.

    Several web processes (``--web-processes``) may start on a new database at once: the
    one whose insert loses reads the winner's key.
    """
    for last in (False, True):
        try:
            with db.writing() as session:
                found = session.get(StoredValue, "secret_key")
                if found is None:
                    found = StoredValue(name="secret_key", value=secrets.token_hex(32))
                    session.add(found)
                return found.value
        except IntegrityError:
            if last:
                raise
    raise AssertionError("unreachable")


def _local_context(db: Database) -> int:
    for last in (False, True):
        try:
            with db.writing() as session:
                return context_for(session).id
        except IntegrityError:  # made by another web process at the same moment: read it
            if last:
                raise
    raise AssertionError("unreachable")


#: The lesson page's own JSON API (its errors are JSON too, in the API's shape).
LESSON_API = "/lesson/api/"


def _wants_json() -> bool:
    return request.path.startswith(("/api/", LESSON_API)) or request.path == "/healthz"


#: The error page's title, by status.
TITLES = {
    400: "Bad request",
    401: "Sign in first",
    403: "Not allowed",
    404: "Not found",
    405: "Not allowed",
    409: "Signed in as someone else",
    410: "Gone",
    413: "Too large",
    429: "Too many checks",
    500: "Our fault",
    503: "Not here",
}


def _answer(refusal: Refusal) -> Response:
    """JSON on the APIs (:func:`~.refusal.json_answer`), the error page elsewhere."""
    if _wants_json():
        response = json_answer(refusal)
        if refusal.status == 401:
            response.headers["WWW-Authenticate"] = 'Bearer realm="menace"'
        return response
    title = TITLES.get(refusal.status, "Error")
    html = refusal.page() or render_template(
        "error.html", code=refusal.status, title=title, message=refusal.message, person=_person()
    )
    response = Response(html, status=refusal.status, mimetype="text/html")
    if refusal.retry_after is not None:
        response.headers["Retry-After"] = str(refusal.retry_after)
    return response


def _person() -> Any:
    """Who is signed in, for an error page's top bar (None when unknown or not worked out).

    A signed-in user refused a page (403) sees their name and "Sign out", not "Sign in".
    """
    from menace_course.service.auth import who

    found = g.get("menace_who")
    if found is not None:
        return found
    try:
        return who()
    except Exception:  # a bad token, or the database is what failed: show no one
        return None


def _signed_in_as_someone_else() -> str | None:
    """Why a form failed its CSRF check, when it was made for another user (see auth.replaced)."""
    from menace_course.service.auth import replaced

    return replaced(request.form.get("signed_in_as") if request.method == "POST" else None, _person())


def _register_errors(app: Flask) -> None:
    """The app's one error handler: every refusal (:mod:`.refusal`) answered in one shape.

    Registered for ``Refusal`` as well, over the JSON-only answer a blueprint brings for an
    app of its own (the lesson page's).
    """

    @app.errorhandler(Refusal)
    @app.errorhandler(Exception)
    def refused(error: Exception) -> Response:
        refusal = as_refusal(error, app.config["MAX_CONTENT_LENGTH"] // 1024, seconds_until_allowed())
        if refusal is None:
            log.error("%s %s failed: %s", printable(request.method), printable(request.path), _where(error))
            from menace_course.service.languages import gettext as _

            refusal = Refusal(
                500, "internal", _("the service failed on this request; this is not your mistake")
            )
        if refusal.code == "csrf":
            replaced = _signed_in_as_someone_else()
            if replaced is not None:
                refusal = Refusal(409, "signed_in_as_someone_else", replaced)
        return _answer(refusal)


def _where(error: Exception) -> str:
    from menace_course.service.dispatch.grading import where

    return where(error)


def _security_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
    if _personal(response):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def _personal(response: Response) -> bool:
    """May this answer be about someone (so no cache, shared or the browser's, may keep it)?

    Every answer of the APIs; every answer to a request with credentials (the session
    cookie, whose name is ``SESSION_COOKIE_NAME``, or an Authorization header); every
    answer that sets a cookie. Static files are the same for everyone.
    """
    if request.endpoint is not None and request.endpoint.rsplit(".", 1)[-1] == "static":
        return False
    return (
        request.path.startswith(("/api/", LESSON_API))
        or current_app.config["SESSION_COOKIE_NAME"] in request.cookies
        or "Authorization" in request.headers
        or "Set-Cookie" in response.headers
        or session.modified  # the session cookie is set after this runs (sign-in, sign-out)
    )


#: Endpoints of other blueprints that run a student's code (in the sandbox): each takes the
#: same sign-in rule and per-student rate limit as a check (:func:`~.limits.runs_code`).
RUNS_STUDENT_CODE = ("lesson.run",)
#: The lesson widget's endpoint: its games run in this process, so it is rate-limited by the
#: games it asks for (:func:`~.limits.widget_limited`).
WIDGET = "lesson.widget"
#: Other lesson endpoints that play in this process, held to the widget's limits too.
PLAYS_IN_PROCESS = (WIDGET, "lesson.trained")


def register_blueprints(app: Flask) -> None:
    """The service's own blueprints, then the optional ones that are installed (lesson, LTI).

    Endpoints in :data:`RUNS_STUDENT_CODE` are wrapped here, so a blueprint that runs code
    need not know about the service's sign-in and rate limits to be held to them.
    """
    from menace_course.service.api import api
    from menace_course.service.pages import pages

    app.register_blueprint(pages)
    app.register_blueprint(api)
    csrf.exempt(api)  # the API checks CSRF itself when a cookie, not a token, signs a request
    for module in ("menace_course.service.lesson", "menace_course.service.lti"):
        if importlib.util.find_spec(module) is not None:
            app.register_blueprint(importlib.import_module(module).blueprint)
    for endpoint in RUNS_STUDENT_CODE:
        if endpoint in app.view_functions:
            app.view_functions[endpoint] = runs_code(app.view_functions[endpoint])
    for endpoint in PLAYS_IN_PROCESS:
        if endpoint in app.view_functions:
            app.view_functions[endpoint] = widget_limited(app.view_functions[endpoint])


def create_app(config: ServiceConfig, dispatcher: Dispatcher | None = None) -> Flask:
    """The service's app, ready to serve (see the module's docstring).

    ``dispatcher`` replaces the one ``config`` asks for (tests); it is started here.
    """
    course = find_course(config.course)
    db = Database(config.database_url)
    db.upgrade()
    app = Flask(
        "menace_course.service",
        root_path=str(HERE),
        template_folder="templates",
        static_folder="static",
    )
    app.config.update(
        SECRET_KEY=_secret_key(db),
        MAX_CONTENT_LENGTH=config.max_body_bytes,
        SESSION_COOKIE_NAME="menace_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=config.public_url.startswith("https://"),
        PERMANENT_SESSION_LIFETIME=timedelta(days=30),
        WTF_CSRF_TIME_LIMIT=None,  # a form open all afternoon still works; the token is per session
        WTF_CSRF_SSL_STRICT=True,
        MENACE=config,  # the one configuration (templates read config.MENACE.open)
    )
    serve_static_well(app)  # first: its after_request functions must run after the others
    app.json.sort_keys = False  # type: ignore[attr-defined]  # reports keep the order menace check prints
    app.session_interface = SessionCookies()
    if config.behind_proxy:
        from menace_course.service.proxy import TrustedProxyFix

        app.wsgi_app = TrustedProxyFix(app.wsgi_app, config.trusted_proxies)  # type: ignore[method-assign]
    app.before_request(refuse_malformed)
    csrf.init_app(app)
    limiter.init_app(app)
    register_blueprints(app)
    app.jinja_env.globals["has_endpoint"] = lambda name: name in app.view_functions
    _register_errors(app)
    app.after_request(_security_headers)
    _register_operations(app, config)
    dispatcher = dispatcher or make_dispatcher(config)
    app.extensions["menace"] = ServiceState(
        config=config, course=course, db=db, dispatcher=dispatcher, local_context_id=_local_context(db)
    )
    with db.reading() as session:
        backlog = [CheckJob.of(a) for a in unfinished(session)]
    dispatcher.start(CountingRecorder(DatabaseRecorder(db)), backlog)
    return app


def _register_operations(app: Flask, config: ServiceConfig) -> None:
    """``/metrics``, and a request id for every request (outermost, so it sees the real peer)."""
    from menace_course.service.logs import RequestIds
    from menace_course.service.proxy import is_trusted, parse_proxies

    register_metrics(app)
    proxies = parse_proxies(config.trusted_proxies)
    trusted = (lambda peer: is_trusted(peer, proxies)) if config.behind_proxy else None
    app.wsgi_app = RequestIds(app.wsgi_app, trusted)  # type: ignore[method-assign]


def shutdown(app: Flask) -> None:
    """Stop the dispatcher and close the database (the end of a worker process, or of a test)."""
    service: Any = app.extensions.get("menace")
    lti: Any = app.extensions.get("menace_lti")
    if lti is not None:
        lti.worker.stop()  # LTI's passback worker (queued scores stay queued)
    if service is not None:
        service.dispatcher.stop()
        service.db.dispose()
