"""Where pylti1p3 keeps a launch's state, nonce and data: the ``lti_store`` table.

pylti1p3's default keeps them in the Flask session, a signed cookie the browser holds. That
cannot make a nonce single-use: whoever replays the launch form replays the cookie too, and
the nonce is still "there". So the tool plugs in two of pylti1p3's extension points:

- :class:`DbLaunchDataStorage` (a ``LaunchDataStorage``) keeps every value in the database,
  with an expiry, shared by all web processes;
- :class:`SingleUseNonceSessionService` (a ``SessionService``) *spends* the nonce when the
  launch checks it: one ``DELETE`` that succeeds for exactly one request. A replayed launch,
  even seconds later with the same cookies, finds no nonce and is refused.

- the nonce is *bound to the browser* that started the login: it is kept under a key
  naming the login's ``state`` too (:class:`StateCookieService` tells the session service
  which state the login just put in its cookie), and the launch finds it only under the
  ``state`` it brings, which pylti1p3 has checked against this browser's state cookie.
  Without this, a nonce was good with any state: an attacker's own unspent id_token, posted
  from a victim's browser with the state of a login the attacker made that browser start,
  signed the victim in as the attacker (login CSRF), and the victim's work went to them.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from pylti1p3.contrib.flask.cookie import FlaskCookieService
from pylti1p3.exception import SessionException
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.session import SessionService
from sqlalchemy import delete, select

from menace_course.service.db.engine import Database
from menace_course.service.db.tables import now
from menace_course.service.lti.tables import LtiStoreEntry

#: A login must turn into a launch within this time (the platform answers in seconds).
NONCE_SECONDS = 10 * 60
#: A verified launch is kept this long (an instructor may take a while in the deep-link picker).
LAUNCH_SECONDS = 24 * 60 * 60


class DbLaunchDataStorage(LaunchDataStorage[Any]):
    """pylti1p3's key-value storage over the ``lti_store`` table."""

    def __init__(self, db: Database) -> None:
        """Keep values in ``db``."""
        super().__init__()
        self.db = db

    def get_session_cookie_name(self) -> str | None:
        """No per-browser key prefix: the state cookie already ties a launch to its browser."""
        return None

    def can_set_keys_expiration(self) -> bool:
        """Every value expires (see :data:`NONCE_SECONDS`, :data:`LAUNCH_SECONDS`)."""
        return True

    def get_value(self, key: str) -> Any:
        """The value under ``key``, or None when absent or expired."""
        with self.db.reading() as session:
            entry = session.scalar(
                select(LtiStoreEntry).where(
                    LtiStoreEntry.key == self._prepare_key(key), LtiStoreEntry.expires_at > now()
                )
            )
            return None if entry is None else entry.value

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        """Keep ``value`` under ``key`` for ``exp`` seconds (a day when not said)."""
        when = now()
        with self.db.writing() as session:
            session.execute(delete(LtiStoreEntry).where(LtiStoreEntry.expires_at <= when))
            session.merge(
                LtiStoreEntry(
                    key=self._prepare_key(key),
                    value=value,
                    expires_at=when + timedelta(seconds=exp or LAUNCH_SECONDS),
                )
            )

    def check_value(self, key: str) -> bool:
        """True when ``key`` holds a live value."""
        return self.get_value(key) is not None

    def consume(self, key: str) -> bool:
        """Delete ``key`` if it is live; True for the one caller that did."""
        with self.db.writing() as session:
            done = session.execute(
                delete(LtiStoreEntry).where(
                    LtiStoreEntry.key == self._prepare_key(key), LtiStoreEntry.expires_at > now()
                )
            )
            return bool(getattr(done, "rowcount", 0))


def bound_nonce(nonce: str, state: str) -> str:
    """The name a nonce is kept under: it and its login's state, hashed (a fixed length)."""
    return hashlib.sha256(f"{nonce}\x00{state}".encode()).hexdigest()


class StateCookieService(FlaskCookieService):
    """pylti1p3's cookie service, remembering the login's state it sets (for the nonce's key)."""

    def __init__(self, request: Any) -> None:
        """Cookies of ``request``'s response; no state set yet."""
        super().__init__(request)  # type: ignore[no-untyped-call]
        self.state: str | None = None

    def set_cookie(self, name: str, value: Any, exp: int | None = 3600) -> None:
        """Set a cookie; a login's ``state-...`` cookie is remembered as :attr:`state`."""
        super().set_cookie(name, value, exp)  # type: ignore[no-untyped-call]
        if name.startswith("state-"):
            self.state = str(value)


class SingleUseNonceSessionService(SessionService):
    """pylti1p3's session service, with nonces bound to their login's state, short-lived, single-use."""

    data_storage: DbLaunchDataStorage

    def __init__(self, request: Any, cookies: StateCookieService) -> None:
        """The session service of ``request``; ``cookies`` says which state a login sets."""
        super().__init__(request)
        self.request = request
        self.cookies = cookies

    def _bound_key(self, nonce: str, state: str) -> str:
        return str(self._get_key("nonce", bound_nonce(nonce, state)))

    def save_nonce(self, nonce: str) -> None:
        """Remember a nonce the login sent to the platform, with its state, for :data:`NONCE_SECONDS`."""
        if self.cookies.state is None:
            raise SessionException("a nonce was made before its login's state cookie")
        self.data_storage.set_value(self._bound_key(nonce, self.cookies.state), True, exp=NONCE_SECONDS)

    def check_nonce(self, nonce: str) -> bool:
        """Spend the nonce: True the first time it comes back with its own login's state."""
        state = self.request.get_param("state")
        if not isinstance(state, str) or not state:
            return False
        return bool(self.data_storage.consume(self._bound_key(nonce, state)))
