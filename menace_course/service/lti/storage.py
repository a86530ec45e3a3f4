"""Where pylti1p3 keeps a launch's state, nonce and data: the ``lti_store`` table.

pylti1p3's default keeps them in the Flask session, a signed cookie the browser holds. That
cannot make a nonce single-use: whoever replays the launch form replays the cookie too, and
the nonce is still "there". So the tool plugs in two of pylti1p3's extension points:

- :class:`DbLaunchDataStorage` (a ``LaunchDataStorage``) keeps every value in the database,
  with an expiry, shared by all web processes;
- :class:`SingleUseNonceSessionService` (a ``SessionService``) *spends* the nonce when the
  launch checks it: one ``DELETE`` that succeeds for exactly one request. A replayed launch,
  even seconds later with the same cookies, finds no nonce and is refused.

Browser binding stays pylti1p3's: the ``state`` the login put in a cookie must come back
with the launch.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.session import SessionService
from sqlalchemy import delete, select

from menace_course.service.db.engine import Database
from menace_course.service.db.models import now
from menace_course.service.lti.models import LtiStoreEntry

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


class SingleUseNonceSessionService(SessionService):
    """pylti1p3's session service, with nonces that expire soon and work only once."""

    data_storage: DbLaunchDataStorage

    def save_nonce(self, nonce: str) -> None:
        """Remember a nonce the login sent to the platform, for :data:`NONCE_SECONDS`."""
        self.data_storage.set_value(self._get_key("nonce", nonce), True, exp=NONCE_SECONDS)

    def check_nonce(self, nonce: str) -> bool:
        """Spend the nonce: True the first time it comes back, False ever after."""
        return self.data_storage.consume(self._get_key("nonce", nonce))
