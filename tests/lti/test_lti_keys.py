"""The tool's keys: made on first use with private permissions, rotated with both published."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import jwt
import pytest

from menace_course.service.lti.keys import KeyStore, KeyStoreError


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_key_is_made_on_first_use_readable_by_this_user_only(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys")
    assert not (tmp_path / "keys").exists()
    key = store.current()
    assert mode(tmp_path / "keys") == 0o700
    assert mode(tmp_path / "keys" / "keys.json") == 0o600
    assert mode(tmp_path / "keys" / f"{key.kid}.pem") == 0o600
    assert KeyStore(tmp_path / "keys").current() == key  # kept, not made again


def test_the_jwks_has_the_public_half_only_under_the_kid_pylti1p3_signs_with(tmp_path: Path) -> None:
    from pylti1p3.registration import Registration

    store = KeyStore(tmp_path / "keys")
    key = store.current()
    (published,) = store.jwks()["keys"]
    assert published["kid"] == key.kid == Registration.get_jwk(key.public_pem)["kid"]
    assert {"n", "e"} <= set(published) and not {"d", "p", "q"} & set(published)
    token = jwt.encode({"x": 1}, key.private_pem, algorithm="RS256", headers={"kid": key.kid})
    public = jwt.PyJWK(published).key
    assert jwt.decode(token, public, algorithms=["RS256"]) == {"x": 1}


def test_rotation_signs_with_the_new_key_and_publishes_both_until_finished(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys")
    old = store.current()
    new = store.rotate()
    assert store.current() == new and new.kid != old.kid
    assert [k["kid"] for k in store.jwks()["keys"]] == [new.kid, old.kid]
    assert store.finish_rotation() == [old.kid]
    assert [k["kid"] for k in store.jwks()["keys"]] == [new.kid]
    assert not (tmp_path / "keys" / f"{old.kid}.pem").exists()
    assert store.finish_rotation() == []


def test_a_key_folder_others_can_read_is_refused_with_the_fix(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys")
    key = store.current()
    os.chmod(tmp_path / "keys" / f"{key.kid}.pem", 0o644)
    with pytest.raises(KeyStoreError, match="chmod 600"):
        KeyStore(tmp_path / "keys").current()


def test_a_damaged_manifest_is_reported_not_replaced(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys")
    store.current()
    (tmp_path / "keys" / "keys.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(KeyStoreError, match="damaged"):
        store.current()
