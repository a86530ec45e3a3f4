"""What a verified launch says, in the service's terms: who, in which course, as what, for what.

pylti1p3 has already checked the id_token (signature against the platform's keys, ``iss``,
``aud``, ``exp``, the nonce, the deployment, the LTI version and message type) when these
functions see its claims. They read:

- **who**: ``User(issuer, sub)``, named from ``name`` (or ``given_name`` + ``family_name``);
- **which course**: ``Context(issuer, "<client id>/<deployment id>/<context id>")``. The
  LTI spec makes a context id unique only within its deployment, and Canvas cloud shares one
  issuer between schools, so the key names all three: two courses never share a context;
- **as what**: :func:`role_of` reads the roles claim exactly as LTI 1.3 (§5.3.7, Appendix
  A.2) and the LIS vocabulary define it. Only *context* (membership) roles count, and they
  are the roles in the launch's own context: ``membership#Instructor`` or
  ``membership#Administrator``, or a sub-role of either
  (``membership/Instructor#TeachingAssistant``), or the simple names ``Instructor`` and
  ``Administrator`` that the spec allows for context roles, make an instructor. A sub-role
  belongs to its principal role: ``membership/Learner#Instructor`` (a student who
  helps teach) is a learner. Institution and system roles (``institution/person#Instructor``,
  ``system/person#Administrator``) say who someone is at the school, not in this course,
  and never grant course rights; unknown roles grant nothing; a launch without a context
  makes nobody an instructor. Everyone else is a learner;
- **for what**: the challenge, from the link's custom parameter ``challenge`` (what deep
  linking puts there) or a target link URI ending in ``/c/<slug>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from menace_course.service.db.tables import Role

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
DEEP_LINKING = "LtiDeepLinkingRequest"
RESOURCE_LINK = "LtiResourceLinkRequest"


class LaunchRefused(Exception):
    """A launch that verified but cannot be used (no user, a bad ``azp``): say why, in a page."""


#: The LIS context (membership) role vocabulary: ``membership#Role`` and ``membership/Role#Sub``.
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
#: The context roles, and their sub-roles, that may teach (see the module's docstring).
TEACHING_ROLES = frozenset({"Instructor", "Administrator"})
#: The principal context roles of LTI 1.3 Appendix A.2.3 (the only simple names the spec allows).
CONTEXT_ROLES = frozenset(
    {"Administrator", "ContentDeveloper", "Instructor", "Learner", "Mentor", "Manager", "Member", "Officer"}
)


def context_role(uri: object) -> str | None:
    """The principal context role a roles-claim entry names, or None (not a context role).

    ``membership#Instructor`` and the simple name ``Instructor`` name Instructor;
    ``membership/Instructor#TeachingAssistant`` names Instructor too (a sub-role belongs
    to its principal role), and ``membership/Learner#Instructor`` names Learner.
    Institution, system and unknown roles name none.
    """
    if not isinstance(uri, str):
        return None
    if uri in CONTEXT_ROLES:
        return uri
    if uri.startswith(MEMBERSHIP + "#"):
        name = uri[len(MEMBERSHIP) + 1 :]
        return name if name in CONTEXT_ROLES else None
    if uri.startswith(MEMBERSHIP + "/"):
        principal, hash_, sub = uri[len(MEMBERSHIP) + 1 :].partition("#")
        return principal if hash_ and sub and principal in CONTEXT_ROLES else None
    return None


def role_of(claims: dict[str, Any]) -> Role:
    """Instructor when a context role of the launch's own course teaches; learner otherwise."""
    context = claims.get(CLAIM + "context")
    if not isinstance(context, dict) or not context.get("id"):
        return Role.LEARNER  # membership roles belong to a context: without one they grant nothing
    roles = claims.get(CLAIM + "roles")
    if not isinstance(roles, list):
        return Role.LEARNER
    if any(context_role(uri) in TEACHING_ROLES for uri in roles):
        return Role.INSTRUCTOR
    return Role.LEARNER


def check_azp(claims: dict[str, Any], client_id: str) -> None:
    """OIDC's rule for several audiences: ``azp`` must be present and be this tool's client id.

    pylti1p3 matches the first ``aud`` against the registration; this adds the ``azp``
    check it leaves out.
    """
    aud = claims.get("aud")
    azp = claims.get("azp")
    audiences = aud if isinstance(aud, list) else [aud]
    if client_id not in audiences:
        raise LaunchRefused(f"the launch is addressed to {aud!r}, not to this tool's client id {client_id!r}")
    if len(audiences) > 1 and azp is None:
        raise LaunchRefused("the launch names several audiences but no authorized party (azp)")
    if azp is not None and azp != client_id:
        raise LaunchRefused(f"the launch's authorized party (azp) is {azp!r}, not this tool ({client_id!r})")


@dataclass(frozen=True)
class LaunchFacts:
    """The parts of a verified launch the service uses."""

    issuer: str
    client_id: str
    deployment_id: str
    subject: str
    name: str
    context_key: str
    context_title: str
    role: Role
    message_type: str
    resource_link_id: str | None
    resource_link_title: str
    challenge: str | None
    ags: dict[str, Any] | None


def facts_of(claims: dict[str, Any], client_id: str) -> LaunchFacts:
    """Read a verified launch's claims.

    Raises:
        LaunchRefused: no ``sub`` (an anonymous launch: there is nobody to grade).
    """
    check_azp(claims, client_id)
    subject = str(claims.get("sub") or "")
    if not subject:
        raise LaunchRefused(
            "the LMS sent an anonymous launch (no user id); this tool needs to know the student"
        )
    issuer = str(claims["iss"])
    deployment_id = str(claims[CLAIM + "deployment_id"])
    context = claims.get(CLAIM + "context") or {}
    context_id = str(context.get("id") or "-")
    context_title = str(context.get("title") or context.get("label") or f"{issuer} course {context_id}")
    link = claims.get(CLAIM + "resource_link") or {}
    ags = claims.get(AGS_CLAIM)
    return LaunchFacts(
        issuer=issuer,
        client_id=client_id,
        deployment_id=deployment_id,
        subject=subject,
        name=name_of(claims),
        context_key=f"{client_id}/{deployment_id}/{context_id}",
        context_title=context_title[:255],
        role=role_of(claims),
        message_type=str(claims.get(CLAIM + "message_type", "")),
        resource_link_id=str(link["id"]) if link.get("id") else None,
        resource_link_title=str(link.get("title") or ""),
        challenge=challenge_of(claims),
        ags=ags if isinstance(ags, dict) else None,
    )


def name_of(claims: dict[str, Any]) -> str:
    """The person's name from the launch (``name``, else given + family name, else their id)."""
    name = str(claims.get("name") or "").strip()
    if not name:
        name = " ".join(str(claims.get(k) or "").strip() for k in ("given_name", "family_name")).strip()
    return (name or str(claims.get("sub", "")))[:255]


def challenge_of(claims: dict[str, Any]) -> str | None:
    """The challenge a resource link opens: custom ``challenge``, else ``.../c/<slug>``."""
    custom = claims.get(CLAIM + "custom") or {}
    if isinstance(custom, dict) and custom.get("challenge"):
        return str(custom["challenge"])
    target = str(claims.get(CLAIM + "target_link_uri") or "")
    parts = [p for p in urlparse(target).path.split("/") if p]
    if len(parts) >= 2 and parts[-2] == "c":
        return parts[-1]
    return None
