"""Where the LMS's access token may go: only to the platform's registered origins.

A launch names its grade service's URLs (the AGS claim's ``lineitem`` and ``lineitems``), and
the passback sends them the LMS's access token. A URL on any other host (127.0.0.1, the
tool's own machine, someone else's server) would receive a token good for the course's
gradebook, so a URL counts only when its origin (scheme, host and port) is one the
administrator registered for the platform:

- the origins of the URLs ``menace lti add-platform`` was given (issuer, login, token, key
  set, token audience): Moodle, Blackboard, D2L and a self-hosted Canvas serve AGS there;
- the ``--grades-origin`` values (kept in the ``settings`` table under
  :func:`setting_name`), for an LMS whose grade service has a host of its own: Canvas cloud
  signs in on ``sso.canvaslms.com`` and serves grades on ``school.instructure.com``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy.orm import Session

from menace_course.service.db.tables import StoredValue
from menace_course.service.lti.tables import LtiPlatform


def origin_of(url: str | None) -> str | None:
    """``scheme://host[:port]`` of an http(s) URL (lower case, default ports left out), else None."""
    try:
        parts = urlsplit(url or "")
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        return None
    default = {"http": 80, "https": 443}[parts.scheme]
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host.lower()}" + (f":{port}" if port not in (None, default) else "")


def setting_name(platform_id: int) -> str:
    """The ``settings`` row holding a platform's extra grade-service origins (space-separated)."""
    return f"lti-grades-origins:{platform_id}"


def registered_origins(session: Session, platform: LtiPlatform) -> set[str]:
    """Every origin the platform's access token may be sent to (see the module's docstring)."""
    urls = [platform.issuer, platform.auth_login_url, platform.auth_token_url, platform.key_set_url]
    urls.append(platform.auth_audience or "")
    extra = session.get(StoredValue, setting_name(platform.id))
    if extra is not None:
        urls.extend(extra.value.split())
    return {o for o in map(origin_of, urls) if o is not None}


def set_grades_origins(session: Session, platform: LtiPlatform, origins: list[str]) -> None:
    """Keep ``origins`` as the platform's extra grade-service origins (none: remove the row)."""
    name = setting_name(platform.id)
    found = session.get(StoredValue, name)
    if not origins:
        if found is not None:
            session.delete(found)
        return
    value = " ".join(sorted({o for o in map(origin_of, origins) if o is not None}))
    if found is None:
        session.add(StoredValue(name=name, value=value))
    else:
        found.value = value


def on_platform(url: str | None, origins: set[str]) -> bool:
    """True when ``url`` is on one of ``origins``."""
    found = origin_of(url)
    return found is not None and found in origins
