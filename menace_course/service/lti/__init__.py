"""LTI 1.3 Advantage: launch from Canvas or Moodle, and scores back into the gradebook.

The protocol work is pylti1p3's (the maintained fork ``pylti1p3next``, imported as
``pylti1p3``): its Flask adapter runs the OIDC login, verifies the id_token and signs the
deep linking response; its service connector gets access tokens and posts scores. The
tool never builds or checks a JWT or an OAuth2 request itself. What is ours:

=================  ==========================================================================
:mod:`.keys`       the tool's RSA keys on disk (0600), made on first use, rotated in two steps
:mod:`.toolconf`   pylti1p3's registrations and deployments, read from the database
:mod:`.storage`    pylti1p3's state/nonce/launch store in the database; nonces work once
:mod:`.launch`     a verified launch's claims in the service's terms (user, course, role)
:mod:`.views`      the ``/lti/...`` endpoints, the challenge picker, the passback table
:mod:`.passback`   the durable passback queue and its worker (retries with backoff)
:mod:`.registry`   ``menace lti add-platform`` and friends
:mod:`.toolconfig` ``menace lti tool-config``: what Canvas's and Moodle's forms ask for
=================  ==========================================================================

:func:`install` adds all of it to the service's app (one call in ``create_app``).
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask

from menace_course.service.lti.runtime import LtiState

__all__ = ["install", "stop"]


def install(app: Flask) -> LtiState:
    """Add LTI to a service app whose state (``app.extensions["menace"]``) is built.

    Makes the tool's key on first run (before any worker process forks), registers the
    ``/lti`` blueprint, exempts from CSRF the endpoints that carry their own proof (the LMS's
    posts: state cookie, signed id_token, single-use nonce; the challenge pick: a one-time
    id of its launch, since the LMS may show it in a frame without cookies), and starts the
    passback worker with the first request of each process.
    """
    from menace_course.service.lti.views import deep_link, launch, login, lti

    service = app.extensions["menace"]
    parts = LtiState.build(service.course, service.db, service.config.state_dir)
    parts.keys.current()
    app.extensions["menace_lti"] = parts
    app.register_blueprint(lti)
    csrf: Any = app.extensions.get("csrf")
    if csrf is not None:
        csrf.exempt(login)
        csrf.exempt(launch)
        csrf.exempt(deep_link)  # tied to its launch by a one-time id instead (it may be framed)
    started = threading.Lock()

    @app.before_request
    def start_passback() -> None:
        if not started.locked() and started.acquire(blocking=False):
            parts.worker.start()

    return parts


def stop(app: Flask) -> None:
    """Stop the passback worker (the end of a web process, or of a test); queued scores stay queued."""
    parts: LtiState | None = app.extensions.get("menace_lti")
    if parts is not None:
        parts.worker.stop()
