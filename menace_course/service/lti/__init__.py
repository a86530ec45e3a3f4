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

``create_app`` registers :data:`blueprint` (as it does every optional part it finds); the
blueprint then sets the rest up itself: CSRF exemptions when it is registered, and with
the first request the LTI state (:func:`~.runtime.lti_state`: the key made on first run)
and the passback worker. :func:`stop` ends the worker (``shutdown`` calls it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Blueprint, Flask

    from menace_course.service.lti.runtime import LtiState

__all__ = ["blueprint", "stop"]


def __getattr__(name: str) -> Blueprint:
    """``blueprint``, imported when asked for: the recorder imports :mod:`.outbox` from this
    package without pulling in the web views (and the views import the service's auth)."""
    if name == "blueprint":
        from menace_course.service.lti.views import lti

        return lti
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def stop(app: Flask) -> None:
    """Stop the passback worker (the end of a web process, or of a test); queued scores stay queued."""
    parts: LtiState | None = app.extensions.get("menace_lti")
    if parts is not None:
        parts.worker.stop()
