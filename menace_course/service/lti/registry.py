"""Registering LMS platforms and their deployments (what ``menace lti add-platform`` writes).

A platform is the pair ``(issuer, client id)``; adding one that exists updates its URLs and
adds the deployments it did not have, so the command can be run again safely, e.g. to add
a second deployment.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlparse

from sqlalchemy import select
from sqlalchemy.orm import Session

from menace_course.errors import UsageError
from menace_course.service.addresses import is_loopback
from menace_course.service.lti.tables import LtiDeployment, LtiPlatform


@dataclass(frozen=True)
class PlatformSpec:
    """What an administrator tells the tool about one LMS registration."""

    issuer: str
    client_id: str
    deployment_ids: tuple[str, ...]
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    auth_audience: str | None = None

    def problems(self) -> list[str]:
        """What is wrong with these values (empty when they can be used)."""
        found = []
        for name, value in (("--issuer", self.issuer), ("--client-id", self.client_id)):
            if not value.strip():
                found.append(f"{name} must not be empty")
            elif len(value) > 255:
                found.append(f"{name} is longer than 255 characters")
        if not self.deployment_ids:
            found.append("give at least one --deployment-id (the LMS shows it when the tool is installed)")
        for deployment in self.deployment_ids:
            if not deployment.strip() or len(deployment) > 255:
                found.append(f"--deployment-id {deployment!r} must be 1 to 255 characters")
        for name, url in (
            ("--auth-login-url", self.auth_login_url),
            ("--auth-token-url", self.auth_token_url),
            ("--key-set-url", self.key_set_url),
        ):
            problem = url_problem(url)
            if problem:
                found.append(f"{name} {url!r}: {problem}")
        return found


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an LMS endpoint, or None. Plain http is for this machine only."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        return "must be an http(s) URL such as https://lms.example.edu/..."
    if len(url) > 1024:
        return "is longer than 1024 characters"
    if parsed.scheme == "http" and not is_loopback(parsed.hostname):
        return "must use https (plain http is accepted only for a test LMS on this machine)"
    return None


@dataclass(frozen=True)
class Added:
    """What :func:`add_platform` did."""

    platform: LtiPlatform
    created: bool
    new_deployments: tuple[str, ...]


def add_platform(session: Session, spec: PlatformSpec) -> Added:
    """Register (or update) a platform and its deployments.

    Raises:
        UsageError: the values cannot be used (each problem listed).
    """
    problems = spec.problems()
    if problems:
        raise UsageError("; ".join(problems))
    platform = session.scalar(
        select(LtiPlatform).where(LtiPlatform.issuer == spec.issuer, LtiPlatform.client_id == spec.client_id)
    )
    created = platform is None
    if platform is None:
        platform = LtiPlatform(issuer=spec.issuer, client_id=spec.client_id)
        session.add(platform)
    platform.auth_login_url = spec.auth_login_url
    platform.auth_token_url = spec.auth_token_url
    platform.key_set_url = spec.key_set_url
    platform.auth_audience = spec.auth_audience
    session.flush()
    known = {d.deployment_id for d in platform.deployments}
    new = tuple(d for d in dict.fromkeys(spec.deployment_ids) if d not in known)
    for deployment_id in new:
        platform.deployments.append(LtiDeployment(deployment_id=deployment_id))
    session.flush()
    return Added(platform, created, new)


def list_platforms(session: Session) -> list[LtiPlatform]:
    """Every registered platform, with its deployments loaded."""
    platforms = list(session.scalars(select(LtiPlatform).order_by(LtiPlatform.issuer, LtiPlatform.client_id)))
    for platform in platforms:
        _ = platform.deployments
    return platforms


def remove(session: Session, issuer: str, client_id: str, deployment_id: str | None = None) -> str:
    """Remove a deployment, or (without one) the whole platform; say what was removed.

    Raises:
        UsageError: nothing matches.
    """
    platform = session.scalar(
        select(LtiPlatform).where(LtiPlatform.issuer == issuer, LtiPlatform.client_id == client_id)
    )
    if platform is None:
        raise UsageError(
            f"no platform with issuer {issuer!r} and client id {client_id!r} (menace lti list-platforms)"
        )
    if deployment_id is None:
        session.delete(platform)
        return f"removed the platform {issuer} (client id {client_id}) and its deployments"
    for deployment in platform.deployments:
        if deployment.deployment_id == deployment_id:
            platform.deployments.remove(deployment)
            return f"removed the deployment {deployment_id} of {issuer} (client id {client_id})"
    raise UsageError(f"{issuer} (client id {client_id}) has no deployment {deployment_id!r}")
