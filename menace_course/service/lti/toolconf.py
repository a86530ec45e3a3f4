"""pylti1p3's view of the registered platforms: the ``lti_platforms`` table and the tool's keys.

pylti1p3 asks a *tool config* which registration an ``iss`` (and ``client_id``) launch
belongs to, and whether a deployment id is known; it then does the OIDC and JWT work itself.
:class:`DbToolConf` answers from the database, so ``menace lti add-platform`` takes effect
without a restart, and hands out the tool's *current* key to sign with (see :mod:`.keys`).

Every issuer is treated as "one issuer, many client ids" (pylti1p3's recommended form): a
launch is matched on the pair ``(iss, aud)``, so two schools on Canvas cloud (one issuer)
never see each other's registration.
"""

from __future__ import annotations

from typing import Any

from pylti1p3.deployment import Deployment
from pylti1p3.registration import Registration
from pylti1p3.tool_config.abstract import ToolConfAbstract
from sqlalchemy import select

from menace_course.service.db.engine import Database
from menace_course.service.lti.keys import KeyStore
from menace_course.service.lti.tables import LtiDeployment, LtiPlatform


def registration_for(platform: LtiPlatform, keys: KeyStore) -> Registration:
    """pylti1p3's registration for one platform row, signing with the tool's current key."""
    key = keys.current()
    registration = (
        Registration()
        .set_issuer(platform.issuer)
        .set_client_id(platform.client_id)
        .set_auth_login_url(platform.auth_login_url)
        .set_auth_token_url(platform.auth_token_url)
        .set_key_set_url(platform.key_set_url)
        .set_tool_private_key(key.private_pem)
        .set_tool_public_key(key.public_pem)
    )
    if platform.auth_audience:
        registration.set_auth_audience(platform.auth_audience)
    return registration


class DbToolConf(ToolConfAbstract):  # type: ignore[type-arg]
    """Registrations and deployments from the database; keys from the :class:`KeyStore`."""

    def __init__(self, db: Database, keys: KeyStore) -> None:
        """Answer from ``db``, signing with ``keys``."""
        self.db = db
        self.keys = keys

    # pylti1p3 keeps "one client per issuer" as a legacy mode in a class-wide dict; this
    # configuration never uses it.
    def check_iss_has_one_client(self, iss: str) -> bool:
        """Never: launches are matched on issuer *and* client id."""
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        """Always (see :meth:`check_iss_has_one_client`)."""
        return True

    def platform(self, iss: str, client_id: str | None) -> LtiPlatform | None:
        """The platform row for ``(iss, client_id)``.

        Without a client id (a platform may leave it out of the login request) the issuer's
        only registration is used; with several, none is (the platform must say which).
        """
        with self.db.reading() as session:
            query = select(LtiPlatform).where(LtiPlatform.issuer == iss)
            if client_id is not None:
                return session.scalar(query.where(LtiPlatform.client_id == client_id))
            found = list(session.scalars(query.limit(2)))
            return found[0] if len(found) == 1 else None

    def find_registration_by_issuer(  # type: ignore[override]  # pylti1p3 checks for None itself
        self, iss: str, *args: Any, **kwargs: Any
    ) -> Registration | None:
        """The issuer's registration, when it has exactly one."""
        return self.find_registration_by_params(iss, None)

    def find_registration_by_params(  # type: ignore[override]  # pylti1p3 checks for None itself
        self, iss: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Registration | None:
        """The registration for ``(iss, client_id)``, or None when it is not registered."""
        platform = self.platform(iss, client_id)
        return None if platform is None else registration_for(platform, self.keys)

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        """The deployment, when the issuer has one registration that knows it."""
        return self.find_deployment_by_params(iss, deployment_id, None)

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Deployment | None:
        """The deployment ``deployment_id`` of ``(iss, client_id)``, if it was registered."""
        platform = self.platform(iss, client_id)
        if platform is None:
            return None
        with self.db.reading() as session:
            known = session.scalar(
                select(LtiDeployment.id).where(
                    LtiDeployment.platform_id == platform.id, LtiDeployment.deployment_id == deployment_id
                )
            )
        return None if known is None else Deployment().set_deployment_id(deployment_id)

    def get_jwks(self, iss: str | None = None, client_id: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """The tool's public keys (the same for every platform)."""
        return self.keys.jwks()
