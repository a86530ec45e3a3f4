"""The tool's own RSA keys: made on first use, kept private on disk, rotated without downtime.

A platform (Canvas, Moodle) checks two kinds of message from the tool with these keys: the
client assertion the tool signs to get an access token for grade passback, and the deep
linking response that carries an instructor's chosen challenge. It finds the public half
at ``GET /lti/jwks`` by the key id (``kid``) in the message's header.

On disk, in one folder (mode 0700)::

    keys.json         {"current": KID, "previous": [KID, ...]}   mode 0600
    <KID>.pem         the private key, PKCS#8 PEM                 mode 0600

The ``kid`` is the key's RFC 7638 thumbprint, the same value pylti1p3 derives when it signs,
so what the tool signs and what ``/lti/jwks`` serves always agree.

Rotation is two steps so a platform that cached the old key set never sees a signature it
cannot check: :meth:`KeyStore.rotate` makes a new key and signs with it from then on, while
the old one stays in the JWKS as ``previous``; once platforms have re-read the key set (a day
is plenty), :meth:`KeyStore.finish_rotation` drops the old keys.

A folder or key file that others can read is refused, as ssh refuses a private key: the key
signs grades into the gradebook, so anyone who can read it can forge them.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwcrypto.jwk import JWK  # type: ignore[import-untyped]

from menace_course.atomic import write_atomic
from menace_course.errors import UsageError

MANIFEST = "keys.json"
KEY_BITS = 2048


class KeyStoreError(UsageError):
    """The key folder cannot be used as it is (permissions, a missing or damaged file)."""


@dataclass(frozen=True)
class ToolKey:
    """One key pair: its id and both halves as PEM text."""

    kid: str
    private_pem: str
    public_pem: str

    def public_jwk(self) -> dict[str, Any]:
        """The public half as a JWK, as a platform reads it from ``/lti/jwks``."""
        jwk: dict[str, Any] = json.loads(JWK.from_pem(self.public_pem.encode()).export_public())
        jwk.update(kid=self.kid, alg="RS256", use="sig")
        return jwk


class KeyStore:
    """The tool's keys in ``folder``; nothing is written until a key is asked for."""

    def __init__(self, folder: Path) -> None:
        """Use ``folder`` (created on first use, mode 0700)."""
        self.folder = folder

    # reading -------------------------------------------------------------------------

    def current(self) -> ToolKey:
        """The key the tool signs with now, generated (with its folder) on first use."""
        manifest = self._manifest()
        if manifest is None:
            with self._locked():
                manifest = self._manifest()  # another process may have made it meanwhile
                if manifest is None:
                    key = self._generate()
                    self._write_manifest({"current": key.kid, "previous": []})
                    return key
        return self._load(manifest["current"])

    def previous(self) -> list[ToolKey]:
        """Keys still published while a rotation is under way (oldest first)."""
        manifest = self._manifest()
        return [] if manifest is None else [self._load(kid) for kid in manifest["previous"]]

    def jwks(self) -> dict[str, list[dict[str, Any]]]:
        """The public key set: the current key first, then any still being rotated out."""
        current = self.current()
        return {"keys": [key.public_jwk() for key in (current, *self.previous())]}

    # changing ------------------------------------------------------------------------

    def rotate(self) -> ToolKey:
        """Make a new key and sign with it; the old ones stay published until finished."""
        old = self.current()
        with self._locked():
            manifest = self._manifest()
            assert manifest is not None
            new = self._generate()
            previous = [kid for kid in manifest["previous"] if kid != old.kid] + [old.kid]
            self._write_manifest({"current": new.kid, "previous": previous})
        return new

    def finish_rotation(self) -> list[str]:
        """Stop publishing the old keys and delete them; returns their ids."""
        with self._locked():
            manifest = self._manifest()
            if manifest is None or not manifest["previous"]:
                return []
            dropped = list(manifest["previous"])
            self._write_manifest({"current": manifest["current"], "previous": []})
            for kid in dropped:
                (self.folder / f"{kid}.pem").unlink(missing_ok=True)
        return dropped

    # files ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold an exclusive lock on the folder, so two processes never both make a first key."""
        self._ensure_folder()
        fd = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _ensure_folder(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.folder, 0o700)

    def _check_private(self, path: Path) -> None:
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise KeyStoreError(
                f"{path} can be read or changed by other users (mode {stat.S_IMODE(mode):o}); "
                f"the LTI keys must be private: chmod 700 {self.folder} and chmod 600 {self.folder}/*"
            )

    def _manifest(self) -> dict[str, Any] | None:
        path = self.folder / MANIFEST
        if not path.exists():
            return None
        self._check_private(self.folder)
        self._check_private(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            current, previous = data["current"], data.get("previous", [])
            if not isinstance(current, str) or not all(isinstance(k, str) for k in previous):
                raise TypeError("key ids must be strings")
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise KeyStoreError(f"{path} is damaged ({error}); restore it from a backup") from error
        return {"current": current, "previous": list(previous)}

    def _write_manifest(self, data: dict[str, Any]) -> None:
        self._write_private(self.folder / MANIFEST, json.dumps(data, indent=2) + "\n")

    def _write_private(self, path: Path, text: str) -> None:
        """Write ``text`` to ``path`` with mode 0600 from the first byte, replacing it atomically."""
        self._ensure_folder()
        write_atomic(path, text, mode=0o600)

    def _generate(self) -> ToolKey:
        private = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
        private_pem = private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        key = _key_from_private_pem(private_pem)
        self._write_private(self.folder / f"{key.kid}.pem", private_pem)
        return key

    def _load(self, kid: str) -> ToolKey:
        path = self.folder / f"{kid}.pem"
        try:
            self._check_private(path)
            key = _key_from_private_pem(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise KeyStoreError(f"cannot read the LTI key {path}: {error}") from error
        if key.kid != kid:
            raise KeyStoreError(f"{path} does not hold the key {kid} (it holds {key.kid})")
        return key


def _key_from_private_pem(private_pem: str) -> ToolKey:
    private = serialization.load_pem_private_key(private_pem.encode(), password=None)
    if not isinstance(private, rsa.RSAPrivateKey):
        raise ValueError("not an RSA key")
    public_pem = (
        private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    kid = JWK.from_pem(public_pem.encode()).thumbprint()
    return ToolKey(kid=kid, private_pem=private_pem, public_pem=public_pem)
