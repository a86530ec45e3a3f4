"""``menace check FILE --server URL``: check a file on the course's check service.

The hidden tests never leave the service; what comes back is the report, in the same
form a local check gives, and the same feedback words (the service renders them with the
course's own templates, so a kit with older wording still shows the service's). Only the
standard library is used here: a student's kit has no web libraries and needs none.

The token comes from ``MENACE_TOKEN`` (never an option: it would stay in the shell's
history). The service's ``Retry-After`` is always honoured: a refusal that ends by itself
(429: a full queue, too many of yours waiting, the rate limit) is waited out for as long as
it says, and at least twice as long as the time before (1, 2, 4 ... 60 s); a check whose wait
the service refused is read again no sooner than it says. All of it within
:data:`GIVE_UP_SECONDS` for the whole check, after which the client says where to look.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from menace_course import __version__, language
from menace_course.catalog import Challenge
from menace_course.checking.loader import Source, read_submission
from menace_course.course import Course, find_course
from menace_course.errors import CourseError, UsageError
from menace_course.language import gettext as _
from menace_course.models import Status, SubmissionReport
from menace_course.student_view import student_dict, student_view

#: How long one request may wait for a check on the service (it holds the answer until done).
WAIT_SECONDS = 25
#: How long a check may take in all before the client gives up and says where to look.
GIVE_UP_SECONDS = 300.0
#: The longest one wait between requests (a Retry-After, or the back-off) lasts.
MOST_BACKOFF = 60.0


class ServiceError(UsageError):
    """The check service could not be reached, refused the request, or failed (exit 2)."""


class TooBusy(ServiceError):
    """The service kept refusing (429) until the check's deadline."""


@dataclass(frozen=True)
class RemoteCheck:
    """One challenge checked on the service: its report and its feedback in the format asked."""

    report: SubmissionReport
    feedback: str | None  #: None for ``--format json``


#: The first part of the path of a page of the service (``/c/after_game``, ``/lesson``...):
#: a URL copied from a page is cut there, which leaves the service's own address.
PAGE_SEGMENTS = frozenset(
    {"c", "lesson", "login", "logout", "instructor", "attempts", "api", "lti", "healthz"}
)


def service_address(server: str) -> str:
    """The service's own address from what a student gave: a page's URL is cut before the page.

    Examples:
        >>> service_address("https://menace.example.edu/c/after_game?x=1")
        'https://menace.example.edu'
        >>> service_address("https://example.edu/menace/lesson#step-3")
        'https://example.edu/menace'

    Raises:
        ServiceError: it is not an http:// or https:// address.
    """
    parts = urllib.parse.urlsplit(server.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ServiceError(
            _(
                "--server %(server)r is not a web address: give the check service's address as your "
                "instructor gave it, starting with https:// (or http://)"
            )
            % {"server": server}
        )
    kept: list[str] = []
    for segment in parts.path.split("/"):
        if segment in PAGE_SEGMENTS:
            break
        if segment:
            kept.append(segment)
    path = "/" + "/".join(kept) if kept else ""
    return f"{parts.scheme}://{parts.netloc}{path}"


def _endpoint(server: str, path: str) -> str:
    return service_address(server) + path


class Session:
    """Requests to one check service, with the student's token."""

    def __init__(
        self,
        server: str,
        token: str | None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Talk to ``server`` (its address, or the URL of one of its pages) as the holder of ``token``."""
        self.server = service_address(server)
        self.token = token
        self.sleep = sleep
        self.clock = clock

    def pause(self, seconds: float, deadline: float, why: str) -> None:
        """Sleep ``seconds`` (at most :data:`MOST_BACKOFF`), or give up if that ends past ``deadline``."""
        seconds = min(seconds, MOST_BACKOFF)
        if self.clock() + seconds > deadline:
            raise TooBusy(_("the check service is too busy (%(why)s); try again later") % {"why": why})
        self.sleep(seconds)

    def request(
        self, method: str, path: str, body: dict[str, Any] | None = None, deadline: float | None = None
    ) -> tuple[int, dict[str, Any], float]:
        """One request; the status, the JSON answer, and its Retry-After (0 when none).

        A 429 is waited out (see the module's docstring) until ``deadline`` (a time of
        :attr:`clock`; :data:`GIVE_UP_SECONDS` from now when None).
        """
        deadline = self.clock() + GIVE_UP_SECONDS if deadline is None else deadline
        backoff = 0.5
        while True:
            status, data, retry_after = self._once(method, path, body)
            if status != 429:
                return status, data, retry_after
            backoff = min(backoff * 2, MOST_BACKOFF)
            self.pause(max(retry_after, backoff), deadline, str(data.get("message", "queue full")))
            backoff = max(backoff, retry_after)

    def _once(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, dict[str, Any], float]:
        url = _endpoint(self.server, path)
        headers = {"Accept": "application/json", "User-Agent": f"menace-course/{__version__}"}
        headers["Accept-Language"] = language.current().replace("_", "-")  # the feedback's language
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=WAIT_SECONDS + 20) as response:
                return response.status, _json(response.read(), url), _retry_after(response.headers, 0)
        except urllib.error.HTTPError as error:
            payload = _json(error.read(), url, strict=False)
            return error.code, payload, _retry_after(error.headers, 1)
        except urllib.error.URLError as error:
            raise ServiceError(_unreachable(self.server, error.reason)) from error
        except (TimeoutError, OSError) as error:
            raise ServiceError(_unreachable(self.server, error)) from error


def _retry_after(headers: Any, default: float) -> float:
    """The seconds a ``Retry-After`` header asks for (a number of seconds; else ``default``)."""
    raw = str(headers.get("Retry-After", "") if headers else "").strip()
    return float(min(int(raw), 3600)) if raw.isdigit() else default


def _unreachable(server: str, reason: object) -> str:
    """One plain sentence for a service that cannot be reached, and what to do."""
    if isinstance(reason, ConnectionRefusedError):
        why = _("nothing answers at that address")
    elif isinstance(reason, TimeoutError | urllib.error.URLError) or "timed out" in str(reason):
        why = _("it did not answer in time")
    elif "Name or service not known" in str(reason) or "nodename nor servname" in str(reason):
        why = _("that machine's name is not known")
    else:
        why = _("the connection failed")
    return _(
        "cannot reach the check service at %(server)s: %(why)s. Check the address your instructor "
        "gave you, and that you are online; if it is right, the service may be down: try again later"
    ) % {"server": server, "why": why}


def _json(raw: bytes, url: str, strict: bool = True) -> dict[str, Any]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        if not strict:
            return {"message": raw[:200].decode("utf-8", "replace")}
        raise ServiceError(_not_a_service(url)) from error
    if not isinstance(data, dict):
        raise ServiceError(_("%(url)s answered with something that is not a check") % {"url": url})
    return data


def _not_a_service(url: str) -> str:
    return _(
        "%(url)s is not a menace check service (it answered with a web page): give --server the "
        "address your instructor gave you, e.g. https://menace.example.edu"
    ) % {"url": url}


def _refused(status: int, data: dict[str, Any], server: str) -> ServiceError:
    message = str(data.get("message") or data.get("error") or f"HTTP {status}")
    if status == 401:
        return ServiceError(
            _(
                "the check service at %(server)s needs your token: set MENACE_TOKEN to the token your "
                "instructor gave you (export MENACE_TOKEN=mc_..., then check again)"
            )
            % {"server": server}
        )
    if status in (404, 405) and "error" not in data:
        return ServiceError(_not_a_service(server))
    if status == 403:
        return ServiceError(_("the check service refused: %(message)s") % {"message": message})
    if status == 413:
        return ServiceError(
            _("the file is too large for the check service: %(message)s") % {"message": message}
        )
    return ServiceError(_("the check service refused the check: %(message)s") % {"message": message})


def submission_text(path: Path) -> str:
    """What is sent: the file's text (a notebook's whole JSON; the service reads its code cells).

    Raises:
        ServiceError: the file is not UTF-8 text (the service takes text).
    """
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ServiceError(
            _("%(file)s is not saved as UTF-8, so it cannot be sent to the check service; save it as UTF-8")
            % {"file": path.name}
        ) from error


def check_remote(
    session: Session, path: Path, challenge: str, output_format: str, give_up: float = GIVE_UP_SECONDS
) -> RemoteCheck:
    """Check ``path`` against ``challenge`` on the service and wait for the report."""
    wanted = "" if output_format == "json" else f"&format={output_format}"
    body = {"challenge": challenge, "filename": path.name, "source": submission_text(path)}
    deadline = session.clock() + give_up
    status, data, retry_after = session.request(
        "POST", f"/api/v1/checks?wait={WAIT_SECONDS}{wanted}", body, deadline
    )
    if status not in (200, 202):
        raise _refused(status, data, session.server)
    while data.get("status") != "done":
        url = str(data.get("url") or f"/api/v1/checks/{urllib.parse.quote(str(data.get('id')))}")
        unfinished = _("the check service has not finished after %(seconds)s s; see it later at %(url)s") % {
            "seconds": f"{give_up:.0f}",
            "url": f"{session.server}{url}",
        }
        if session.clock() + retry_after > deadline:
            raise ServiceError(unfinished)
        if retry_after:  # the service refused to wait for us: it says when to ask again
            session.sleep(min(retry_after, MOST_BACKOFF))
        try:
            status, data, retry_after = session.request(
                "GET", f"{url}?wait={WAIT_SECONDS}{wanted}", None, deadline
            )
        except TooBusy:
            raise ServiceError(unfinished) from None
        if status != 200:
            raise _refused(status, data, session.server)
    report = data.get("report")
    if not isinstance(report, dict):
        raise ServiceError(_("the check service answered without a report"))
    try:
        # Printed as a local check prints it: the student's view (an older service sent the whole record).
        parsed = student_view(SubmissionReport.from_dict(report))
    except (KeyError, TypeError, ValueError) as error:
        raise ServiceError(
            _("the check service's report could not be read (%(error)s); update menace-course")
            % {"error": error}
        ) from error
    feedback = data.get("feedback") if output_format != "json" else None
    return RemoteCheck(parsed, feedback if isinstance(feedback, str) else None)


def _detect_remotely(session: Session, source: Source) -> list[str]:
    """The challenges a file answers, from the service's list (when there is no course here)."""
    status, data, _retry = session.request("GET", "/api/v1/challenges")
    items = data.get("challenges") if status == 200 else None
    if not isinstance(items, list):
        raise _refused(status, data, session.server)
    functions = {str(c.get("function")): str(c.get("slug")) for c in items if isinstance(c, dict)}
    found = [slug for function, slug in functions.items() if function in source.defined]
    found = found or [slug for slug in functions.values() if slug == source.path.stem]
    if not found:
        raise ServiceError(
            _(
                "%(file)s defines none of the challenges' functions (%(slugs)s); "
                "name the challenge with --challenge SLUG"
            )
            % {"file": source.path.name, "slugs": ", ".join(sorted(functions.values()))}
        )
    return found


def check_on_server(
    server: str,
    file: Path,
    slug: str | None,
    course: Path | None,
    read: Callable[[Course, Path, str | None], tuple[Source, list[Challenge]]],
    output_format: str,
    ascii_only: bool,
) -> list[SubmissionReport] | None:
    """``menace check FILE --server URL``: check on the service and print as a local check prints.

    The file and its challenges are found as a local check finds them (``read``, with the
    course here or the kit's); with no course at all, the challenge is ``slug`` or is found
    from the service's list. None when the file cannot be read at all: then nothing of it
    can be sent, and the local check says why (nothing of the student's runs for that).
    """
    import os
    import sys

    from menace_course.terminal import print_feedback

    session = Session(server, os.environ.get("MENACE_TOKEN") or None)
    try:
        source, challenges = read(find_course(course), file, slug)
        slugs = [c.slug for c in challenges]
    except CourseError:
        if file.is_dir():
            raise ServiceError(
                _("%(path)s is a folder; give the file with your function in it") % {"path": file}
            ) from None
        source = read_submission(file)
        slugs = [slug] if slug else _detect_remotely(session, source)
    if source.status is Status.UNREADABLE:
        return None
    path = file if not file.is_dir() else file / source.path
    checks = [check_remote(session, path, name, output_format) for name in slugs]
    reports = [c.report for c in checks]
    print(_("menace: checked on the check service at %(url)s") % {"url": session.server}, file=sys.stderr)
    if output_format == "json":
        data = [student_dict(r) for r in reports]
        sys.stdout.write(json.dumps(data[0] if len(data) == 1 else data, indent=2, ensure_ascii=False) + "\n")
        return reports
    separator = "\n" if output_format != "html" else "\n<hr>\n"
    text = separator.join(c.feedback or "" for c in checks)
    if output_format == "text":
        print_feedback(text, ascii_only=ascii_only)
    else:
        sys.stdout.write(text)
    return reports
