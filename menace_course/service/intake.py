"""Take in one submission, from the API or the page's form, the same way: check it, store it, queue it.

:func:`accept` is the only place an attempt is created. In order: the challenge must
exist, the file name must be a plain ``.py`` or ``.ipynb`` name, the text must fit the
size the loader accepts, the dispatcher must have room, and then, counted in the same
database transaction that stores the attempt (:func:`~.db.attempts.admit_attempt`), the
student must not have ``--per-student`` checks waiting, nor the service ``--max-queue``.
Only then is the attempt committed and queued, so an acknowledged attempt is never lost,
and a refused one leaves nothing behind. A student over their own limit is told so rather
than that the queue is full: the admission counts their lane first, and when the
dispatcher has no room at all, a plain reading of their lane (which decides nothing)
chooses the words of the refusal; a check that is taken costs no reading of its own.

Anonymous checks (``--open``) are counted per address (the address itself is not
stored, only a hash of it), and all of them together may hold at most
:attr:`~.config.ServiceConfig.open_queue` places: fifty addresses cannot crowd out the
students who signed in.
"""

from __future__ import annotations

import hashlib
import re

from flask import has_request_context, request

from menace_course import catalog
from menace_course.checking.loader import MAX_BYTES
from menace_course.errors import UnknownChallenge
from menace_course.feedback import Format, render
from menace_course.models import SubmissionReport
from menace_course.service.auth import Who
from menace_course.service.db.attempts import AdmissionLimits, OverLimit, admit_attempt, waiting_in
from menace_course.service.db.tables import Attempt
from menace_course.service.dispatch.base import QUEUE_IS_FULL, CheckJob, QueueFull
from menace_course.service.languages import gettext as _
from menace_course.service.languages import ngettext
from menace_course.service.logs import request_id
from menace_course.service.refusal import Refusal
from menace_course.service.state import ServiceState

FILENAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.\-]{0,99}\.(py|ipynb)")


def slugs(service: ServiceState) -> list[str]:
    """The course's challenges."""
    return catalog.list_slugs(service.course)


#: A name that can only be one folder of the course's challenges (no separator, no dot first).
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,99}")


def check_challenge(service: ServiceState, slug: str) -> None:
    """Refuse an unknown challenge (400), with the close matches.

    A known challenge is found with one look at its ``challenge.toml`` (what
    :func:`~menace_course.catalog.list_slugs` looks for in every folder); the whole list
    is read only to refuse, for its close matches.
    """
    if _PLAIN_NAME.fullmatch(slug) and (service.course.challenges_dir / slug / "challenge.toml").is_file():
        return
    known = slugs(service)
    if slug not in known:
        from menace_course import language
        from menace_course.service.languages import request_language

        speaking = language.use(request_language())  # the refusal in the student's language
        try:
            message = str(UnknownChallenge(slug, known))
        finally:
            language.reset(speaking)
        raise Refusal(400, "unknown_challenge", message)


def _filename(slug: str, filename: str | None, source: str) -> str:
    """The name the file is checked under: ``filename`` if it is a plain name, else refused."""
    if not filename:
        looks_like_notebook = source.lstrip().startswith("{") and '"cells"' in source[:100_000]
        return f"{slug}.ipynb" if looks_like_notebook else f"{slug}.py"
    if not FILENAME.fullmatch(filename):  # no folder part ("../x.py", "a/b.py", "C:\\x.py"), no NUL
        raise Refusal(
            400,
            "bad_filename",
            _("the file name %(name)r is not a plain name ending in .py or .ipynb") % {"name": filename[:60]},
        )
    return filename


def accept(service: ServiceState, person: Who, slug: str, filename: str | None, source: str) -> Attempt:
    """Store and queue one check (see the module's docstring).

    Raises:
        Refusal: 400 unknown challenge or bad name, 413 too large, 429 too many waiting.
    """
    check_challenge(service, slug)
    name = _filename(slug, filename, source)
    size = len(source.encode("utf-8", errors="replace"))
    if size > MAX_BYTES:
        raise Refusal(
            413,
            "too_large",
            _("the file is %(size)s KB; the limit is %(limit)s KB")
            % {"size": size // 1024, "limit": MAX_BYTES // 1024},
        )
    config = service.config
    limits = AdmissionLimits(
        per_lane=config.per_user_queued,
        queue=config.max_queue,
        shared=None if person.user_id is not None else config.open_queue,
    )
    where = lane(person)
    try:
        with service.dispatcher.accepting() as enqueue:
            with service.db.writing() as db:
                admitted = admit_attempt(
                    db,
                    lane=where,
                    limits=limits,
                    context_id=person.context_id,
                    user_id=person.user_id,
                    challenge=slug,
                    filename=name,
                    source=source,
                    request_id=request_id.get(),
                )
            enqueue(CheckJob.of(admitted.attempt, admitted.ahead))
    except QueueFull as full:
        with service.db.reading() as db:  # only to say the student's own limit first, not to enforce it
            waiting = waiting_in(db, where)
        if waiting >= limits.per_lane:
            over = OverLimit("lane", waiting, limits.per_lane)
            raise _refusal(over, anonymous=person.user_id is None) from full
        raise Refusal(429, "queue_full", _(str(full)), retry_after=full.retry_after) from full
    except OverLimit as over:
        raise _refusal(over, anonymous=person.user_id is None) from over
    return admitted.attempt


def lane(person: Who) -> str:
    """Whose limit a submission counts against: the user, else (anonymous) a hash of the address."""
    if person.user_id is not None:
        return f"user:{person.user_id}"
    address = (request.remote_addr if has_request_context() else None) or "?"
    return "addr:" + hashlib.sha256(address.encode("utf-8", "replace")).hexdigest()[:32]


def _refusal(over: OverLimit, anonymous: bool) -> Refusal:
    """The 429 a student reads: whose limit it is, and what to do about it."""
    if over.which == "lane" and anonymous:
        # Without a sign-in the limit is the address's, which a whole classroom behind one
        # router (NAT) shares: the checks waiting may be other people's.
        return Refusal(
            429,
            "too_many_waiting",
            ngettext(
                "%(num)s check from your network address is waiting already (without a "
                "sign-in the limit is per address, shared by everyone behind it); wait for it to "
                "finish, or sign in to have a limit of your own",
                "%(num)s checks from your network address are waiting already (without a "
                "sign-in the limit is per address, shared by everyone behind it); wait for them to "
                "finish, or sign in to have a limit of your own",
                over.waiting,
            )
            % {"num": over.waiting},
            retry_after=2,
        )
    if over.which == "lane":
        return Refusal(
            429,
            "too_many_waiting",
            ngettext(
                "you have %(num)s check waiting already; wait for it to finish",
                "you have %(num)s checks waiting already; wait for them to finish",
                over.waiting,
            )
            % {"num": over.waiting},
            retry_after=2,
        )
    if over.which == "shared":
        return Refusal(
            429,
            "queue_full",
            ngettext(
                "%(num)s check without a sign-in is waiting, the most this service takes; "
                "sign in, or try again shortly",
                "%(num)s checks without a sign-in are waiting, the most this service takes; "
                "sign in, or try again shortly",
                over.waiting,
            )
            % {"num": over.waiting},
            retry_after=5,
        )
    return Refusal(429, "queue_full", _(QUEUE_IS_FULL), retry_after=5)


def feedback(service: ServiceState, report: SubmissionReport, format: Format) -> str:
    """The report in words, exactly as ``menace check --format FORMAT`` shows it, in the page's language."""
    from menace_course.service.languages import request_language

    return render(report, service.course.templates_dir, format, request_language())
