"""A small LTI 1.3 platform (an "LMS") to try the tool against, built on ``lti1p3platform``.

The protocol work is done by the ``lti1p3platform`` package (OpenLearning's platform-side
library, written independently of pylti1p3, which the tool uses): it builds and signs the
id_token, checks the tool's client assertion against the tool's JWKS and issues access
tokens, checks Bearer tokens on the grade service, and verifies the tool's deep linking
response. This module only gives it a web face (Flask), in-memory courses, people, links,
line items and a gradebook, and the registration checks a real LMS makes on top
(``redirect_uri`` registered, ``login_hint`` is the signed-in user, the assertion names the
client).

Two courses on two deployments, so several deployments and context separation can be tried::

    course-a  "MENACE (autumn)"  deployment-1  alice, bob (Learner), ines (Instructor),
                                               tom (TeachingAssistant)
    course-b  "MENACE (spring)"  deployment-2  carol (Learner), dora (Instructor)

Run it with ``python -m tests.lti.lms`` (see ``docs/lti.md``); the tests start it in a
thread with :func:`start_platform`.
"""

from __future__ import annotations

import html
import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask, Response, abort, redirect, request
from lti1p3platform.exceptions import LtiDeepLinkingResponseException, LtiException
from lti1p3platform.lineitem import TLineItem
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request as PlatformRequest
from lti1p3platform.request import TRequest
from lti1p3platform.response import Response as PlatformResponse
from lti1p3platform.score import TScore, UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, TPage
from werkzeug.serving import BaseWSGIServer, make_server

CLIENT_ID = "menace-tool"
LIS = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
ROLES = {
    "Learner": [LIS + "Learner"],
    "Instructor": [LIS + "Instructor"],
    "TeachingAssistant": ["http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"],
}
AGS_SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]


@dataclass
class Person:
    """Someone signed up on the platform: their opaque id (``sub``), name and course role."""

    sub: str
    name: str
    given_name: str
    family_name: str
    course: str
    role: str


@dataclass
class Course:
    """A course (an LTI context) and the deployment of the tool in it."""

    id: str
    title: str
    label: str
    deployment_id: str


@dataclass
class Link:
    """A resource link the tool placed in a course (by deep linking)."""

    id: str
    course: str
    title: str
    url: str
    custom: dict[str, str]
    lineitem_id: str | None


@dataclass
class ScorePost:
    """One score the tool posted, as received."""

    lineitem_id: str
    body: dict[str, Any]
    received_at: float


@dataclass
class PlatformState:
    """Everything the platform knows; one lock guards it (requests come from many threads)."""

    issuer: str
    tool_url: str
    private_pem: str
    public_pem: str
    courses: dict[str, Course]
    people: dict[str, Person]
    links: dict[str, Link] = field(default_factory=dict)
    lineitems: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: list[ScorePost] = field(default_factory=list)
    token_requests: list[dict[str, Any]] = field(default_factory=list)
    deep_link_responses: list[list[dict[str, Any]]] = field(default_factory=list)
    #: Tests may change the id_token's claims before it is signed (forged launches).
    mutate_claims: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    #: Tests may sign the id_token with another key (a forged signature).
    signing_key_override: str | None = None
    #: Seconds an id_token is valid for (tests set a negative value for an expired token).
    id_token_lifetime: int = 300
    #: Tests may hold score posts here (a slow LMS): each waits until the event is set.
    hold_scores: threading.Event | None = None
    #: Score posts waiting in :attr:`hold_scores` right now.
    held: int = 0
    #: While set, the grade service and the token endpoint answer 503 (the LMS is "down").
    unavailable: bool = False
    lock: threading.RLock = field(default_factory=threading.RLock)
    counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def client_id(self) -> str:
        return CLIENT_ID

    @property
    def auth_login_url(self) -> str:
        return f"{self.issuer}/auth"

    @property
    def auth_token_url(self) -> str:
        return f"{self.issuer}/token"

    @property
    def key_set_url(self) -> str:
        return f"{self.issuer}/jwks"

    def tool(self, path: str) -> str:
        return f"{self.tool_url.rstrip('/')}{path}"

    def lineitems_url(self, course: str) -> str:
        return f"{self.issuer}/api/{course}/lineitems"

    def lineitem_url(self, course: str, lineitem_id: str) -> str:
        return f"{self.lineitems_url(course)}/{lineitem_id}"

    def add_platform_command(self) -> str:
        """The ``menace lti add-platform`` line that registers this platform in the tool."""
        deployments = " ".join(
            f"--deployment-id {c.deployment_id}" for c in sorted(self.courses.values(), key=lambda c: c.id)
        )
        return (
            f"menace lti add-platform --issuer {self.issuer} --client-id {self.client_id} "
            f"{deployments} --auth-login-url {self.auth_login_url} "
            f"--auth-token-url {self.auth_token_url} --key-set-url {self.key_set_url}"
        )

    def scores_for(self, sub: str) -> list[ScorePost]:
        with self.lock:
            return [s for s in self.scores if s.body.get("userId") == sub]


def new_state(issuer: str, tool_url: str) -> PlatformState:
    """A fresh platform with its own RSA key, two courses and their people."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public_pem = (
        private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    courses = {
        "course-a": Course("course-a", "MENACE (autumn)", "MEN-A", "deployment-1"),
        "course-b": Course("course-b", "MENACE (spring)", "MEN-B", "deployment-2"),
    }
    people = {
        p.sub: p
        for p in [
            Person("alice", "Alice Liddell", "Alice", "Liddell", "course-a", "Learner"),
            Person("bob", "Bob Cratchit", "Bob", "Cratchit", "course-a", "Learner"),
            Person("ines", "Ines Ide", "Ines", "Ide", "course-a", "Instructor"),
            Person("tom", "Tom Tutor", "Tom", "Tutor", "course-a", "TeachingAssistant"),
            Person("carol", "Carol Spring", "Carol", "Spring", "course-b", "Learner"),
            Person("dora", "Dora Don", "Dora", "Don", "course-b", "Instructor"),
        ]
    }
    return PlatformState(issuer, tool_url, private_pem, public_pem, courses, people)


# lti1p3platform glue ---------------------------------------------------------------------


class FlaskPlatformRequest(PlatformRequest):
    """lti1p3platform's view of the current Flask request."""

    def build_metadata(self, req: Any) -> TRequest:
        json_body = req.get_json(silent=True, force=True) if req.data else None
        return {
            "method": req.method,
            "form_data": req.form.to_dict(),
            "get_data": req.args.to_dict(),
            "headers": req.headers,
            "content_type": req.content_type,
            "path": req.path,
            "json": json_body,
        }


class PlatformConf(LTI1P3PlatformConfAbstract):
    """The tool's registration on this platform, for one deployment."""

    def init_platform_config(self, **kwargs: Any) -> None:
        state: PlatformState = kwargs["state"]
        deployment_id: str = kwargs.get("deployment_id", "deployment-1")
        self._registration = (
            Registration()
            .set_iss(state.issuer)
            .set_client_id(state.client_id)
            .set_deployment_id(deployment_id)
            .set_launch_url(state.tool("/lti/launch"))
            .set_deeplink_launch_url(state.tool("/lti/launch"))
            .set_oidc_login_url(state.tool("/lti/login"))
            .set_tool_key_set_url(state.tool("/lti/jwks"))
            .set_platform_public_key(state.public_pem)
            .set_platform_private_key(state.signing_key_override or state.private_pem)
        )

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        assert self._registration is not None
        return self._registration


class Login(OIDCLoginAbstract):
    """Third-party initiated login: send the browser to the tool's login URL."""

    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> Response:
        return redirect(url)  # type: ignore[return-value]


class Launch(LTIAdvantageMessageLaunchAbstract):
    """The id_token post back to the tool, rendered as lti1p3platform's auto-posting form."""

    state: PlatformState

    def get_launch_message(self, include_extra_claims: bool = True) -> dict[str, Any]:
        message = super().get_launch_message(include_extra_claims)
        if self.state.mutate_claims is not None:
            message = self.state.mutate_claims(dict(message))
        return message

    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> Response:
        fields = "".join(
            f'<input type="hidden" name="{name}" value="{html.escape(str(launch_data[name]))}">'
            for name in ("id_token", "state")
        )
        page = (
            "<!doctype html><html><head><meta charset='utf-8'><title>Launching the tool</title></head>"
            f"<body><form id='launch' method='post' action='{html.escape(launch_data['launch_url'])}'>"
            f"{fields}<noscript><button>Continue to the tool</button></noscript></form>"
            "<script>document.getElementById('launch').submit();</script></body></html>"
        )
        return Response(page, mimetype="text/html")


class Grades(AssignmentsGradesService):
    """The Assignment and Grade Services of one course, over the in-memory gradebook."""

    state: PlatformState
    course: str

    def find_lineitems(
        self,
        page: int = 1,
        limit: int | None = None,
        line_item_id: str | None = None,
        resource_link_id: str | None = None,
        resource_id: str | None = None,
        tag: str | None = None,
    ) -> TPage:
        with self.state.lock:
            items = [
                self._public(i)
                for i in self.state.lineitems.values()
                if i["course"] == self.course
                and (resource_link_id is None or i.get("resourceLinkId") == resource_link_id)
                and (resource_id is None or i.get("resourceId") == resource_id)
                and (tag is None or i.get("tag") == tag)
            ]
        return {"content": items, "has_next": False}

    def find_lineitem(self, line_item_id: str) -> TLineItem:
        with self.state.lock:
            item = self.state.lineitems.get(line_item_id)
            if item is None or item["course"] != self.course:
                from lti1p3platform.exceptions import LineItemNotFoundException

                raise LineItemNotFoundException(line_item_id)
            return self._public(item)  # type: ignore[return-value]

    def create_lineitem(self, creation_data: TLineItem) -> TLineItem:
        with self.state.lock:
            return self.state_create_lineitem(self.course, dict(creation_data))  # type: ignore[return-value]

    def state_create_lineitem(self, course: str, data: dict[str, Any]) -> dict[str, Any]:
        lineitem_id = f"li{next(self.state.counter)}"
        item = {**data, "course": course, "id_key": lineitem_id}
        self.state.lineitems[lineitem_id] = item
        return self._public(item)

    def update_lineitem(self, update_data: TLineItem) -> TLineItem:
        raise NotImplementedError("the test platform does not edit line items")

    def delete_lineitem(self, line_item_id: str) -> None:
        raise NotImplementedError("the test platform does not delete line items")

    def update_score(self, line_item_id: str, score: TScore) -> UpdateScoreStatus:
        self.find_lineitem(line_item_id)
        with self.state.lock:
            self.state.scores.append(ScorePost(line_item_id, dict(score), time.time()))  # type: ignore[arg-type]
        return UpdateScoreStatus.SUCCESS

    def get_results(
        self, line_item_id: str, page: int = 1, limit: int | None = None, user_id: str | None = None
    ) -> TPage:
        item = self.find_lineitem(line_item_id)
        results = [
            {
                "id": f"{item['id']}/results/{sub}",
                "scoreOf": item["id"],
                "userId": sub,
                "resultScore": body["scoreGiven"],
                "resultMaximum": body["scoreMaximum"],
            }
            for sub, body in latest_scores(self.state, line_item_id).items()
            if user_id is None or sub == user_id
        ]
        return {"content": results, "has_next": False}

    def _public(self, item: dict[str, Any]) -> dict[str, Any]:
        public = {k: v for k, v in item.items() if k not in ("course", "id_key")}
        public["id"] = self.state.lineitem_url(item["course"], item["id_key"])
        return public


def latest_scores(state: PlatformState, lineitem_id: str) -> dict[str, dict[str, Any]]:
    """The gradebook cell per user: the score with the newest ``timestamp`` (AGS rule)."""
    cells: dict[str, dict[str, Any]] = {}
    with state.lock:
        for post in state.scores:
            if post.lineitem_id != lineitem_id:
                continue
            sub = post.body["userId"]
            if sub not in cells or post.body["timestamp"] >= cells[sub]["timestamp"]:
                cells[sub] = post.body
    return cells


# the web face ----------------------------------------------------------------------------


def create_app(state: PlatformState) -> Flask:
    """The platform's Flask app over ``state``."""
    app = Flask("menace-test-platform")
    app.config["SECRET_KEY"] = uuid.uuid4().hex

    def conf(deployment_id: str = "deployment-1") -> PlatformConf:
        return PlatformConf(state=state, deployment_id=deployment_id)

    def grades(course: str) -> Grades:
        if course not in state.courses:
            abort(404)
        service = Grades(
            FlaskPlatformRequest(request),
            conf(state.courses[course].deployment_id),
            state.lineitems_url(course),
        )
        service.state, service.course = state, course
        return service

    def answer(result: PlatformResponse) -> Response:
        """lti1p3platform's answer as HTTP: a page of items is a JSON array plus a Link header."""
        data = result.result if result.result is not None else {"message": result.message}
        headers = {}
        if isinstance(data, dict) and "content" in data and "has_next" in data:
            if data.get("next"):
                headers["Link"] = f'<{data["next"]}>; rel="next"'
            data = data["content"]
        return Response(json.dumps(data), status=result.code, mimetype=result.media_type, headers=headers)

    @app.get("/")
    def home() -> str:
        return _home_page(state)

    @app.get("/jwks")
    def jwks() -> Response:
        return Response(json.dumps(conf().get_jwks()), mimetype="application/json")

    @app.get("/launch")
    def launch() -> Response:
        """Start a launch as ``user``: of link ``link``, or deep linking in ``course``."""
        person = state.people.get(request.args.get("user", ""))
        if person is None:
            abort(400, "unknown user")
        if "link" in request.args:
            link = state.links.get(request.args["link"])
            if link is None or link.course != person.course:
                abort(400, "no such link in this user's course")
            hint, target = f"link:{link.id}", link.url
        else:
            hint, target = f"deeplink:{person.course}", state.tool("/lti/launch")
        login = Login(FlaskPlatformRequest(request), conf(state.courses[person.course].deployment_id))
        login.set_lti_message_hint(hint=hint)
        login.set_launch_url(target)
        response: Response = login.initiate_login(person.sub)
        response.set_cookie("platform_user", person.sub, httponly=True, samesite="Lax")
        return response

    @app.route("/auth", methods=["GET", "POST"])
    def auth() -> Response:
        """The OIDC authorization endpoint: check the tool's request, post the id_token."""
        params = request.values.to_dict()
        expected = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post"}
        for name, value in expected.items():
            if params.get(name) != value:
                abort(400, f"{name} must be {value}")
        if params.get("client_id") != state.client_id:
            abort(400, "unknown client_id")
        if params.get("redirect_uri") != state.tool("/lti/launch"):
            abort(400, "redirect_uri is not registered for this tool")
        person = state.people.get(params.get("login_hint", ""))
        if person is None or request.cookies.get("platform_user") != person.sub:
            abort(403, "login_hint is not the signed-in user")
        course = state.courses[person.course]
        hint = params.get("lti_message_hint", "")
        message = Launch(FlaskPlatformRequest(request), conf(course.deployment_id))
        message.state = state
        message.set_id_token_expiration(state.id_token_lifetime)
        message.set_user_data(person.sub, ROLES[person.role], full_name=person.name)
        message.set_extra_claims({"given_name": person.given_name, "family_name": person.family_name})
        message.set_launch_context_claim(
            course.id,
            context_types=["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"],
            context_title=course.title,
            context_label=course.label,
        )
        if hint.startswith("link:"):
            link = state.links.get(hint.removeprefix("link:"))
            if link is None or link.course != course.id:
                abort(400, "unknown link")
            message.set_resource_link_claim(link.id, title=link.title)
            message.set_launch_url(link.url)
            if link.custom:
                message.set_custom_parameters_claim(dict(link.custom))
            lineitem = state.lineitem_url(course.id, link.lineitem_id) if link.lineitem_id else None
            message.set_ags(state.lineitems_url(course.id), lineitem)
        elif hint == f"deeplink:{course.id}":
            if person.role == "Learner":
                abort(403, "only staff add activities")
            message.set_dl(
                f"{state.issuer}/deep_link_return?course={course.id}",
                title="Add a MENACE challenge",
                accept_types={"ltiResourceLink"},
                extra_data={"course": course.id},
            )
        else:
            abort(400, "bad lti_message_hint")
        try:
            return message.lti_launch()  # type: ignore[no-any-return]
        except LtiException as error:
            abort(400, str(error))

    @app.post("/token")
    def token() -> Response:
        """The OAuth2 token endpoint (client credentials with a signed JWT assertion)."""
        form = request.form.to_dict()
        with state.lock:
            state.token_requests.append(form)
        if state.unavailable:
            return Response("platform unavailable", status=503)
        platform = conf()
        try:
            access = platform.get_access_token(form)
            claims = jwt.decode(form["client_assertion"], options={"verify_signature": False})
        except Exception as error:  # lti1p3platform raises plain exceptions of several kinds
            return Response(json.dumps({"error": "invalid_client", "detail": str(error)}), status=400)
        if claims.get("iss") != state.client_id or claims.get("sub") != state.client_id:
            return Response(json.dumps({"error": "invalid_client"}), status=400)
        if claims.get("aud") not in (state.auth_token_url, [state.auth_token_url]):
            return Response(json.dumps({"error": "invalid_client", "detail": "aud"}), status=400)
        return Response(json.dumps(access), mimetype="application/json")

    @app.route("/api/<course>/lineitems", methods=["GET", "POST"])
    def lineitems(course: str) -> Response:
        if state.unavailable:
            return Response("platform unavailable", status=503)
        service = grades(course)
        if request.method == "POST":
            return answer(service.handle_resp(service.handle_create_lineitem))
        return answer(service.handle_resp(service.handle_get_lineitems))

    @app.get("/api/<course>/lineitems/<lineitem_id>")
    def lineitem(course: str, lineitem_id: str) -> Response:
        service = grades(course)
        return answer(service.handle_resp(service.handle_get_lineitem, line_item_id=lineitem_id))

    @app.post("/api/<course>/lineitems/<lineitem_id>/scores")
    def scores(course: str, lineitem_id: str) -> Response:
        if state.unavailable:
            return Response("platform unavailable", status=503)
        hold = state.hold_scores
        if hold is not None:
            with state.lock:
                state.held += 1
            try:
                hold.wait(60)
            finally:
                with state.lock:
                    state.held -= 1
        service = grades(course)
        return answer(service.handle_resp(service.handle_update_score, line_item_id=lineitem_id))

    @app.get("/api/<course>/lineitems/<lineitem_id>/results")
    def results(course: str, lineitem_id: str) -> Response:
        service = grades(course)
        return answer(service.handle_resp(service.handle_get_results, line_item_id=lineitem_id))

    @app.post("/offline")
    def offline() -> Response:
        """Take the grade service down (503) or bring it back: ``on=1`` / ``on=0``."""
        state.unavailable = request.form.get("on") == "1"
        return redirect("/")  # type: ignore[return-value]

    @app.post("/deep_link_return")
    def deep_link_return() -> Response:
        """The tool's deep linking response: verify it and place the links in the course."""
        course = request.args.get("course", "")
        if course not in state.courses:
            abort(400, "unknown course")
        try:
            items = conf(state.courses[course].deployment_id).validate_deeplinking_resp(
                request.form.to_dict()
            )
        except (LtiException, LtiDeepLinkingResponseException, jwt.PyJWTError) as error:
            abort(400, f"deep linking response refused: {error}")
        with state.lock:
            state.deep_link_responses.append(items)
            for item in items:
                link_id = f"link{next(state.counter)}"
                lineitem_id = None
                if "lineItem" in item:
                    data = {**item["lineItem"], "resourceLinkId": link_id}
                    data.setdefault("label", item.get("title", link_id))
                    service = Grades.__new__(Grades)
                    service.state, service.course = state, course
                    lineitem_id = service.state_create_lineitem(course, data)["id"].rsplit("/", 1)[1]
                state.links[link_id] = Link(
                    link_id,
                    course,
                    item.get("title", link_id),
                    item.get("url") or state.tool("/lti/launch"),
                    dict(item.get("custom", {})),
                    lineitem_id,
                )
        return redirect("/")  # type: ignore[return-value]

    return app


def _home_page(state: PlatformState) -> str:
    """The LMS's front page: registration values, courses, links, launch buttons, gradebook."""
    e = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>Test LMS</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
        "table{border-collapse:collapse}td,th{border:1px solid #999;padding:.3em .6em}"
        "code{background:#eee;padding:.1em .3em}pre{white-space:pre-wrap;background:#eee;padding:.5em}"
        "</style></head><body>",
        "<h1>Test LMS (LTI 1.3 platform for menace-course)</h1>",
        "<h2>Register this platform in the tool</h2>",
        f"<pre id='register'>{e(state.add_platform_command())}</pre>",
        f"<p>Tool: <code>{e(state.tool_url)}</code>. Issuer <code>{e(state.issuer)}</code>, "
        f"client id <code>{e(state.client_id)}</code>.</p>",
        "<form method='post' action='/offline'>"
        + (
            "<p id='offline'><strong>The grade service is offline</strong> (it answers 503). "
            "<input type='hidden' name='on' value='0'><button>Bring it back online</button></p>"
            if state.unavailable
            else "<p id='online'>The grade service is online. "
            "<input type='hidden' name='on' value='1'><button>Take it offline</button></p>"
        )
        + "</form>",
    ]
    with state.lock:
        for course in sorted(state.courses.values(), key=lambda c: c.id):
            people = [p for p in state.people.values() if p.course == course.id]
            staff = [p for p in people if p.role != "Learner"]
            parts.append(f"<h2 id='{e(course.id)}'>{e(course.title)} ({e(course.deployment_id)})</h2>")
            for person in staff:
                query = urlencode({"user": person.sub})
                parts.append(
                    f"<p><a class='deep-link' href='/launch?{query}'>Add a MENACE activity as "
                    f"{e(person.name)} ({e(person.role)})</a></p>"
                )
            links = [link for link in state.links.values() if link.course == course.id]
            if not links:
                parts.append("<p>No activity yet.</p>")
            for link in links:
                parts.append(f"<h3>{e(link.title)}</h3><p>")
                for person in people:
                    query = urlencode({"user": person.sub, "link": link.id})
                    parts.append(
                        f"<a class='launch' data-user='{e(person.sub)}' href='/launch?{query}'>"
                        f"open as {e(person.name)}</a> · "
                    )
                parts.append("</p>")
                if link.lineitem_id:
                    item = state.lineitems[link.lineitem_id]
                    cells = latest_scores(state, link.lineitem_id)
                    parts.append(
                        f"<table class='gradebook' data-link='{e(link.id)}'><tr><th>student</th>"
                        f"<th>score (out of {item.get('scoreMaximum', 0):g})</th><th>when</th></tr>"
                    )
                    for person in people:
                        cell = cells.get(person.sub)
                        score = "" if cell is None else f"{cell['scoreGiven']:g}"
                        when = "" if cell is None else cell["timestamp"]
                        parts.append(
                            f"<tr data-user='{e(person.sub)}'><td>{e(person.name)}</td>"
                            f"<td class='score'>{e(score)}</td><td>{e(when)}</td></tr>"
                        )
                    parts.append("</table>")
    parts.append("</body></html>")
    return "".join(parts)


# running it ------------------------------------------------------------------------------


@dataclass
class RunningPlatform:
    """A platform served on 127.0.0.1 in a background thread."""

    state: PlatformState
    server: BaseWSGIServer
    thread: threading.Thread
    host: str
    port: int

    @property
    def url(self) -> str:
        return self.state.issuer

    def stop(self) -> None:
        """Stop answering (connections are refused from now on)."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    def restart(self) -> RunningPlatform:
        """Serve the same state on the same port again."""
        return _serve(self.state, self.host, self.port)


def start_platform(tool_url: str, host: str = "127.0.0.1", port: int = 0) -> RunningPlatform:
    """Start a fresh platform for the tool at ``tool_url``; ``port`` 0 picks a free one."""
    server = make_server(host, port, Flask("placeholder"), threaded=True)
    bound = server.socket.getsockname()[1]
    state = new_state(f"http://{host}:{bound}", tool_url)
    server.app = create_app(state)  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, name="lti-test-platform", daemon=True)
    thread.start()
    return RunningPlatform(state, server, thread, host, bound)


def _serve(state: PlatformState, host: str, port: int) -> RunningPlatform:
    server = make_server(host, port, create_app(state), threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="lti-test-platform", daemon=True)
    thread.start()
    return RunningPlatform(state, server, thread, host, port)


def write_registration(state: PlatformState, path: Path) -> None:
    """Write the platform's registration values as JSON (for scripts)."""
    path.write_text(
        json.dumps(
            {
                "issuer": state.issuer,
                "client_id": state.client_id,
                "deployment_ids": sorted(c.deployment_id for c in state.courses.values()),
                "auth_login_url": state.auth_login_url,
                "auth_token_url": state.auth_token_url,
                "key_set_url": state.key_set_url,
            },
            indent=2,
        ),
        encoding="utf-8",
    )
