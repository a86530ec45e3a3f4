"""The tool's LTI endpoints (blueprint ``lti``, under ``/lti``).

::

    GET|POST /lti/login        OIDC third-party-initiated login: state (cookie) and nonce
                               (database) kept, browser sent to the platform's auth URL
    POST     /lti/launch       the platform's id_token, verified by pylti1p3; then the
                               student is signed in and lands on /c/<slug>, or an
                               instructor adding the tool picks a challenge (deep linking)
    POST     /lti/deep-link    the picked challenge, sent back to the platform as a signed
                               LtiDeepLinkingResponse (a link carrying the slug, and a line
                               item with the challenge's maximum score)
    GET      /lti/jwks         the tool's public keys
    GET      /lti/grades       an instructor's view of their course's gradebook passback
    POST     /lti/grades/<id>/resend   send that student's score again now

Whatever is wrong with a launch (forged, expired, replayed, from an unknown platform or
deployment) ends on a page that says what happened and what to do, with status 400 or 403,
and one log line on ``menace.lti``; never a traceback.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import urlparse

import jwt
from flask import Blueprint, Response, abort, redirect, render_template, request, url_for
from flask.blueprints import BlueprintSetupState
from pylti1p3.contrib.flask.message_launch import FlaskMessageLaunch
from pylti1p3.contrib.flask.oidc_login import FlaskOIDCLogin
from pylti1p3.contrib.flask.request import FlaskRequest
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.lineitem import LineItem
from pylti1p3.tool_config.abstract import ToolConfException  # type: ignore[attr-defined]
from sqlalchemy import select

from menace_course.service.auth import require_instructor, sign_in, who
from menace_course.service.db.people import context_for, set_role, user_for
from menace_course.service.db.tables import Role, User
from menace_course.service.lti import passback
from menace_course.service.lti.launch import DEEP_LINKING, RESOURCE_LINK, LaunchFacts, LaunchRefused, facts_of
from menace_course.service.lti.runtime import lti_state
from menace_course.service.lti.storage import SingleUseNonceSessionService, StateCookieService
from menace_course.service.lti.tables import LtiOutcome, LtiPlatform
from menace_course.service.refusal import Refusal
from menace_course.service.state import state

lti = Blueprint("lti", __name__, url_prefix="/lti", template_folder="templates", static_folder="static")
log = logging.getLogger("menace.lti")


@lti.record_once
def _exempt_from_csrf(setup: BlueprintSetupState) -> None:
    """The endpoints that carry their own proof need no CSRF token.

    The LMS's posts (login, launch) have the state cookie, the signed id_token and the
    single-use nonce; the challenge pick has the one-time id of its launch (the LMS may show
    the picker in a frame, where this site's cookies may not travel).
    """
    csrf: Any = setup.app.extensions.get("csrf")
    if csrf is not None:
        for view in (login, launch, deep_link):
            csrf.exempt(view)


@lti.before_app_request
def _start_passback() -> None:
    """With the first request of a web process: the LTI state (and key) and the passback worker."""
    lti_state().worker.start()


@lti.app_context_processor
def _passback_link() -> dict[str, Any]:
    """``lti_passback_url()`` for the service's pages: the passback table's address once an LMS
    is registered (the class page links to it), else None."""

    def lti_passback_url() -> str | None:
        with state().db.reading() as db:
            registered = db.scalar(select(LtiPlatform.id).limit(1)) is not None
        return url_for("lti.grades") if registered else None

    return {"lti_passback_url": lti_passback_url}


#: Store key prefix marking a deep-linking launch whose pick is still open (spent by the pick).
PICKING = "picking-"
PICK_SECONDS = 2 * 60 * 60


class Refused(Refusal):
    """A launch or login that cannot go on: a sentence, what to do, a status (its own page)."""

    def __init__(self, status: int, reason: str, advice: str) -> None:
        """Keep what the page shows."""
        super().__init__(status, "launch_refused", reason)
        self.reason, self.advice = reason, advice

    def page(self) -> str:
        """The LTI refusal page: what went wrong, and what to do."""
        return render_template("lti/refused.html", reason=self.reason, advice=self.advice, person=None)


def _launch_url() -> str:
    public = state().config.public_url.rstrip("/")
    return f"{public}/lti/launch" if public else url_for("lti.launch", _external=True)


def _services(req: FlaskRequest) -> dict[str, Any]:
    parts = lti_state()
    cookies = StateCookieService(req)
    return {
        "session_service": SingleUseNonceSessionService(req, cookies),
        "cookie_service": cookies,
        "launch_data_storage": parts.storage,
    }


def _explain(error: BaseException) -> Refused:
    """Turn pylti1p3's reason into what the person in front of the page can do about it."""
    text = str(error)
    lowered = text.lower()
    reopen = "Open the activity again from your course in the LMS."
    if "could not find issuer" in lowered or "could not find login hint" in lowered:
        return Refused(
            400,
            "This is not an LMS's login request (it names no issuer or no user).",
            "Open the tool from a course in the LMS; its address alone does not sign anyone in.",
        )
    if "fetching the public key" in lowered or "must be json" in lowered:
        return Refused(
            502,
            "The tool could not read the LMS's public keys, so it cannot check this launch.",
            "The LMS may be down, or its key set URL is wrong: an administrator checks it with "
            "'menace lti list-platforms'. Then open the activity again.",
        )
    if "nonce" in lowered:
        return Refused(403, "This launch was already used (its one-time code was spent).", reopen)
    if "expired" in lowered:
        return Refused(403, "This launch has expired.", reopen + " If it keeps happening, check the clocks.")
    if "signature" in lowered or "public key" in lowered or "kid" in lowered:
        return Refused(
            403,
            "The launch's signature does not match the keys the LMS publishes.",
            "It did not come from the registered LMS, or the LMS changed its keys. "
            "An administrator can check the key set URL with 'menace lti list-platforms'.",
        )
    if "registration" in lowered or "client id" in lowered or "could not find" in lowered:
        return Refused(
            403,
            "This LMS (or this client id) is not registered with the tool.",
            "An administrator registers it with 'menace lti add-platform' (see docs/lti.md).",
        )
    if "deployment" in lowered:
        return Refused(
            403,
            f"{text.rstrip('.')}: this deployment of the tool is not registered.",
            "An administrator adds it with 'menace lti add-platform ... --deployment-id ID'.",
        )
    if "state" in lowered or "cookie" in lowered:
        return Refused(
            403,
            "The launch did not come back to the browser that started it (its login cookie is missing).",
            "Allow cookies for this site, or set the LMS to open the tool in a new window; then "
            + reopen[0].lower()
            + reopen[1:],
        )
    return Refused(400, f"The LMS sent a launch the tool cannot use: {text}", reopen)


def _refuse(refused: Refused, error: BaseException | None = None) -> Refused:
    """``refused``, logged with the launch's claims (unverified: for the log only), to raise."""
    claims: dict[str, Any] = {}
    token = request.form.get("id_token", "")
    if token:
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            claims = {}
    log.warning(
        "LTI %s refused: %s (%s) [iss=%.200r aud=%.200r deployment=%.200r sub=%.200r from %s]",
        request.path,
        refused.reason,
        str(error or "")[:300],
        claims.get("iss"),
        claims.get("aud"),
        claims.get("https://purl.imsglobal.org/spec/lti/claim/deployment_id"),
        claims.get("sub"),
        request.remote_addr,
    )
    return refused


LTI_ERRORS = (
    LtiException,
    OIDCException,
    ToolConfException,
    LaunchRefused,
    jwt.PyJWTError,
    KeyError,
    ValueError,
)


@lti.route("/login", methods=["GET", "POST"])
def login() -> Any:
    """OIDC third-party-initiated login: remember state and nonce, send the browser to the LMS."""
    req = FlaskRequest()  # type: ignore[no-untyped-call]
    try:
        oidc = FlaskOIDCLogin(req, lti_state().toolconf, **_services(req))
        return oidc.disable_check_cookies().redirect(_launch_url())
    except LTI_ERRORS as error:
        raise _refuse(_explain(error), error) from error


@lti.post("/launch")
def launch() -> Any:
    """Verify the platform's id_token (pylti1p3), then sign the person in and send them on."""
    parts = lti_state()
    req = FlaskRequest()  # type: ignore[no-untyped-call]
    message = FlaskMessageLaunch(
        req,
        parts.toolconf,
        requests_session=parts.http(),
        service_connector_cls=passback.TokenCachingConnector,
        **_services(req),
    )
    try:
        claims = message.get_launch_data()
        facts = facts_of(dict(claims), message.get_client_id())
    except LaunchRefused as error:
        raise _refuse(
            Refused(403, str(error).capitalize() + ".", "Ask the LMS administrator."), error
        ) from error
    except LTI_ERRORS as error:
        raise _refuse(_explain(error), error) from error
    if facts.message_type == DEEP_LINKING:
        return _deep_linking(facts, message.get_launch_id(), dict(claims))
    if facts.message_type != RESOURCE_LINK:
        raise _refuse(
            Refused(400, f"This tool does not handle {facts.message_type} messages.", "Ask the LMS admin.")
        )
    return _resource_link(facts)


def _sign_in(facts: LaunchFacts, remember_link: bool) -> tuple[int, str | None]:
    """Create or update the user, course and role; sign the browser in. Returns (context, problem)."""
    parts = lti_state()
    platform = parts.toolconf.platform(facts.issuer, facts.client_id)
    assert platform is not None  # pylti1p3 found its registration a moment ago
    problem = None
    with state().db.writing() as db:
        user = user_for(db, facts.issuer, facts.subject, facts.name)
        if user.revoked_at is not None:
            raise LaunchRefused("this user's access was revoked on the service")
        context = context_for(db, facts.issuer, facts.context_key, facts.context_title)
        set_role(db, user, context, facts.role)
        if remember_link and facts.resource_link_id and facts.challenge and facts.role is Role.LEARNER:
            passback.remember_launch(
                db,
                user_id=user.id,
                context_id=context.id,
                platform_id=platform.id,
                deployment_id=facts.deployment_id,
                resource_link_id=facts.resource_link_id,
                challenge=facts.challenge,
                ags=facts.ags,
            )
            if not facts.ags:
                problem = "the LMS did not enable grades for this link; scores stay on this site"
        db.flush()
        signed = db.get(User, user.id)
        assert signed is not None
        context_id = context.id
    sign_in(signed, context_id)
    log.info(
        "LTI launch: %s (%s) as %s in %r, %s",
        facts.subject,
        facts.issuer,
        facts.role.value,
        facts.context_title,
        facts.challenge or facts.message_type,
    )
    return context_id, problem


def _resource_link(facts: LaunchFacts) -> Any:
    slugs = lti_state().challenge_slugs()
    if facts.challenge is None or facts.challenge not in slugs:
        named = f"'{facts.challenge}'" if facts.challenge else "no challenge"
        raise _refuse(
            Refused(
                400,
                f"This link names {named}; the course's challenges are: {', '.join(slugs)}.",
                "The instructor re-adds the activity from the LMS and picks a challenge.",
            )
        )
    try:
        _sign_in(facts, remember_link=True)
    except LaunchRefused as error:
        raise _refuse(Refused(403, str(error).capitalize() + ".", "Ask your instructor."), error) from error
    return redirect(url_for("pages.challenge", slug=facts.challenge))


def _frame_policy(response: Response, platform_url: str | None) -> Response:
    """Let the LMS frame this page (Canvas shows the picker in a dialog) and receive its form."""
    origin = _origin(platform_url)
    targets = f"'self' {origin}" if origin else "'self'"
    response.headers["Content-Security-Policy"] = (
        f"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        f"form-action {targets}; frame-ancestors {targets}; base-uri 'none'; object-src 'none'"
    )
    response.headers["X-Frame-Options"] = "ALLOWALL" if origin else "SAMEORIGIN"
    response.headers["Cache-Control"] = "no-store"
    return response


def _origin(url: str | None) -> str | None:
    parsed = urlparse(url or "")
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        return None
    return f"{parsed.scheme}://{parsed.netloc}"


def _return_url(claims: dict[str, Any]) -> str | None:
    settings = claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings") or {}
    found = settings.get("deep_link_return_url") if isinstance(settings, dict) else None
    return str(found) if found else None


def _deep_linking(facts: LaunchFacts, launch_id: str, claims: dict[str, Any]) -> Any:
    """An instructor adds the tool: show the challenges to pick from.

    The picker may sit in the LMS's frame, where this site's cookies may not travel; so the
    pick is tied to the launch by its id (random, kept server-side, spent once), not by the
    session.
    """
    if facts.role is not Role.INSTRUCTOR:
        raise _refuse(
            Refused(403, "Only an instructor can add this tool to a course.", "Ask your instructor.")
        )
    try:
        _sign_in(facts, remember_link=False)
    except LaunchRefused as error:
        raise _refuse(
            Refused(403, str(error).capitalize() + ".", "Ask the LMS administrator."), error
        ) from error
    lti_state().storage.set_value(PICKING + launch_id, True, exp=PICK_SECONDS)
    page = render_template(
        "lti/pick.html",
        challenges=lti_state().challenge_list(),
        launch_id=launch_id,
        course=facts.context_title,
        person=who(),  # signed in a moment ago: the top bar names the instructor
    )
    return _frame_policy(Response(page, mimetype="text/html"), _return_url(claims))


@lti.post("/deep-link")
def deep_link() -> Any:
    """Send the instructor's pick back to the LMS as a signed deep linking response."""
    launch_id = request.form.get("launch", "")
    slug = request.form.get("challenge", "")
    choices = {c.slug: c for c in lti_state().challenge_list()}
    if slug not in choices:
        raise _refuse(Refused(400, f"There is no challenge {slug!r}.", "Pick one from the list."))
    if not launch_id or not lti_state().storage.consume(PICKING + launch_id):
        raise _refuse(
            Refused(
                403,
                "This choice does not belong to an open 'add activity' launch (or it was sent already).",
                "Add the activity again from the LMS.",
            )
        )
    picked = choices[slug]
    req = FlaskRequest()  # type: ignore[no-untyped-call]
    try:
        message = FlaskMessageLaunch.from_cache(launch_id, req, lti_state().toolconf, **_services(req))
        claims = dict(message.get_launch_data())
        if not message.is_deep_link_launch():
            raise LaunchRefused("this launch was not a request to add an activity")
        resource = (
            DeepLinkResource()
            .set_url(_launch_url())
            .set_title(picked.title)
            .set_custom_params({"challenge": slug})
            .set_lineitem(
                LineItem()
                .set_label(picked.title)
                .set_score_maximum(picked.max_score)
                .set_resource_id(slug)
                .set_tag(f"menace:{slug}")
            )
        )
        signed = message.get_deep_link().get_response_jwt([resource])
    except LTI_ERRORS as error:
        raise _refuse(_explain(error), error) from error
    return_url = _return_url(claims)
    log.info("LTI deep link: %s picked %s for %s", claims.get("sub"), slug, return_url)
    page = render_template("lti/return.html", return_url=return_url, jwt=signed, title=picked.title)
    return _frame_policy(Response(page, mimetype="text/html"), return_url)


@lti.get("/jwks")
def jwks() -> Any:
    """The tool's public keys (current, and any being rotated out)."""
    response = Response(json.dumps(lti_state().keys.jwks()), mimetype="application/json")
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


@lti.get("/grades")
def grades() -> Any:
    """The instructor's passback table for their course: each student's score and its state."""
    person = require_instructor()
    with state().db.reading() as db:
        outcomes = list(
            db.scalars(
                select(LtiOutcome)
                .where(LtiOutcome.context_id == person.context_id)
                .order_by(LtiOutcome.challenge, LtiOutcome.id)
            )
        )
        rows = []
        policies: dict[str, str] = {}
        for outcome in outcomes:
            if outcome.challenge not in policies:
                policies[outcome.challenge] = lti_state().policy(outcome.challenge)
            best = passback.pick_score(db, outcome, "best")
            latest = passback.pick_score(db, outcome, "latest")
            rows.append(
                {
                    "id": outcome.id,
                    "name": outcome.user.name,
                    "subject": outcome.user.subject,
                    "challenge": outcome.challenge,
                    "policy": policies[outcome.challenge],
                    "best": best,
                    "latest": latest,
                    "status": status_of(outcome),
                    "outcome": outcome,
                }
            )
    return render_template("lti/grades.html", rows=rows, person=person)


def status_of(outcome: LtiOutcome) -> str:
    """``sent``, ``waiting`` (queued, no failure yet), ``retrying`` (failed at least once) or ``no score``."""
    if outcome.due:
        return "retrying" if outcome.tries else "waiting"
    return "sent" if outcome.sent_at is not None else "no score"


@lti.post("/grades/<int:outcome_id>/resend")
def resend(outcome_id: int) -> Any:
    """Queue one student's score again, now (instructors of that course only)."""
    person = require_instructor()
    with state().db.writing() as db:
        if not passback.resend(db, outcome_id, person.context_id):
            abort(404)
    lti_state().worker.wake()
    return redirect(url_for("lti.grades"))
