"""What an LMS administrator types in to add the tool: ``menace lti tool-config``.

Canvas (Admin → Developer Keys → + Developer Key → + LTI Key) takes the fields one by one or
the whole configuration as JSON ("Paste JSON"); Moodle (Site administration → Plugins →
Activity modules → External tool → Manage tools → configure a tool manually) takes them in
its form. Both need the same few URLs of the tool, all under its public address.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

SCOPES = (
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
)
TITLE = "MENACE course"
DESCRIPTION = (
    "Auto-graded exercises for the lesson 'Can Matchboxes Learn to Play?'; scores go to the gradebook."
)


@dataclass(frozen=True)
class ToolUrls:
    """The tool's endpoints under its public base URL."""

    base: str

    @property
    def login(self) -> str:
        """OIDC initiation (login) URL."""
        return f"{self.base}/lti/login"

    @property
    def launch(self) -> str:
        """Redirect URI and target link URI: where the id_token is posted."""
        return f"{self.base}/lti/launch"

    @property
    def jwks(self) -> str:
        """The tool's public key set."""
        return f"{self.base}/lti/jwks"

    @property
    def domain(self) -> str:
        """The host name (Canvas asks for it)."""
        return self.base.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]


def canvas_json(urls: ToolUrls) -> dict[str, Any]:
    """Canvas's developer key configuration ("Paste JSON")."""
    placement = {
        "text": TITLE,
        "message_type": "LtiDeepLinkingRequest",
        "target_link_uri": urls.launch,
        "windowTarget": "_blank",
    }
    return {
        "title": TITLE,
        "description": DESCRIPTION,
        "oidc_initiation_url": urls.login,
        "target_link_uri": urls.launch,
        "public_jwk_url": urls.jwks,
        "scopes": list(SCOPES),
        "extensions": [
            {
                "domain": urls.domain,
                "platform": "canvas.instructure.com",
                "privacy_level": "public",
                "settings": {
                    "text": TITLE,
                    "placements": [
                        {**placement, "placement": "assignment_selection"},
                        {**placement, "placement": "link_selection"},
                    ],
                },
            }
        ],
        "custom_fields": {},
    }


def as_text(urls: ToolUrls) -> str:
    """The fields, named as each LMS names them, then the next step."""
    return f"""\
The tool's address: {urls.base}

== Canvas: Admin > Developer Keys > + Developer Key > + LTI Key ==
  Redirect URIs ................ {urls.launch}
  Method ....................... Manual entry (or paste `menace lti tool-config --format canvas-json`)
  Title ........................ {TITLE}
  Target Link URI .............. {urls.launch}
  OpenID Connect Initiation Url  {urls.login}
  JWK Method ................... Public JWK URL
  Public JWK URL ............... {urls.jwks}
  LTI Advantage Services ....... turn on: Can create and view assignment data in the gradebook
                                 associated with the tool; Can view assignment data in the
                                 gradebook associated with the tool; Can view submission data
                                 for assignments associated with the tool; Can create and
                                 update submission results for assignments associated with the tool
  Additional Settings .......... Privacy Level: Public (names reach the tool)
  Placements ................... Assignment Selection and Link Selection, each with
                                 message type LtiDeepLinkingRequest and target {urls.launch};
                                 open in a new tab (windowTarget _blank)
  Then: save, set the key ON, copy its Client ID; install the app in an account or course
  (Settings > Apps > + App > By Client ID) and copy its Deployment ID.

== Moodle: Site administration > Plugins > Activity modules > External tool > Manage tools ==
  configure a tool manually:
  Tool URL ..................... {urls.launch}
  LTI version .................. LTI 1.3
  Public key type .............. Keyset URL
  Public keyset ................ {urls.jwks}
  Initiate login URL ........... {urls.login}
  Redirection URI(s) ........... {urls.launch}
  Supports Deep Linking ........ yes (Content-Item Message)
  Content Selection URL ........ {urls.launch}
  Default launch container ..... New window
  Services: IMS LTI Assignment and Grade Services ... Use this service for grade sync and
                                 column management
  Privacy: Share launcher's name with tool ... Always
  Then: save, and open the tool's "View configuration details" for its Platform ID,
  Client ID, Deployment ID and URLs.

== Scopes the tool asks for ==
  {chr(10).join("  " + s for s in SCOPES).strip()}

== Then register the LMS in the tool ==
  menace lti add-platform --issuer ISSUER --client-id CLIENT_ID --deployment-id DEPLOYMENT_ID \\
      --auth-login-url URL --auth-token-url URL --key-set-url URL
  Canvas cloud: issuer https://canvas.instructure.com,
      --auth-login-url https://sso.canvaslms.com/api/lti/authorize_redirect
      --auth-token-url https://sso.canvaslms.com/login/oauth2/token
      --key-set-url https://sso.canvaslms.com/api/lti/security/jwks
      --grades-origin https://SCHOOL.instructure.com   (where its grades are)
  Moodle at https://moodle.example.edu: issuer https://moodle.example.edu,
      --auth-login-url https://moodle.example.edu/mod/lti/auth.php
      --auth-token-url https://moodle.example.edu/mod/lti/token.php
      --key-set-url https://moodle.example.edu/mod/lti/certs.php
"""


def as_json(urls: ToolUrls) -> str:
    """Every value as one JSON object (for scripts), with Canvas's configuration inside."""
    return json.dumps(
        {
            "base_url": urls.base,
            "login_url": urls.login,
            "redirect_uris": [urls.launch],
            "target_link_uri": urls.launch,
            "jwks_url": urls.jwks,
            "deep_linking_url": urls.launch,
            "placements": ["assignment_selection", "link_selection"],
            "scopes": list(SCOPES),
            "canvas": canvas_json(urls),
        },
        indent=2,
    )
