"""Where menace keeps what it can make again: generated examples, compiled templates and code.

``$MENACE_CACHE_DIR`` names the folder; otherwise it is ``menace-course`` in the user's
cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``). Everything here may be deleted at any
time; a folder that cannot be written only makes menace slower.

What is read back from the cache decides grades (the generated examples are what the
property tests check), so it must be impossible to poison from a sandbox:

* :func:`trusted_folder` uses a folder only when it belongs to the user running menace
  and no one else may write to it (a folder another user made in ``/tmp`` is ignored);
* :func:`seal` and :func:`unseal` bind each file to a secret key (``.key`` in the
  cache folder, mode 0600): an HMAC-SHA256 over its bytes, checked on every read. A file
  that does not match is ignored and made again.

Under bubblewrap no sandbox sees the cache at all; a process sandbox run as root runs
student code as ``nobody``, who can neither read the key nor write the folder. A process
sandbox run as an ordinary user runs student code as that same user, who owns the key
too: that sandbox is not isolated, and says so.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # (the warm checker's client asks for a folder with os alone: no pathlib)
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

KEY_FILE = ".key"
KEY_BYTES = 32


def cache_root() -> Path:
    """The cache folder (it may not exist yet)."""
    from pathlib import Path

    return Path(_root_name())


def _root_name() -> str:
    """:func:`cache_root` as a string, found with ``os`` alone."""
    explicit = os.environ.get("MENACE_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        home = os.path.expanduser("~")
        if home.startswith("~"):  # as Path.home() says it
            raise RuntimeError("Could not determine home directory.")
        base = os.path.join(home, ".cache")
    return os.path.join(base, "menace-course")


def _owned_and_private(path: str) -> bool:
    """True when ``path`` is a real folder (not a link) of this user that no one else may write."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.geteuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def trusted_folder(name: str) -> Path | None:
    """``cache_root()/name``, made if need be, or None when it cannot be trusted or made."""
    folder = trusted_folder_name(name)
    if folder is None:
        return None
    from pathlib import Path

    return Path(folder)


def trusted_folder_name(name: str) -> str | None:
    """:func:`trusted_folder` as a string, with ``os`` alone (the warm checker's client uses it)."""
    root = _root_name()
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
        folder = os.path.join(root, name)
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
    except OSError:
        return None
    return folder if _owned_and_private(root) and _owned_and_private(folder) else None


def _key() -> bytes | None:
    """The cache's secret key, made on first use; None where the cache cannot be trusted."""
    root = cache_root()
    if trusted_folder(".") is None:
        return None
    path = root / KEY_FILE
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return _new_key(path)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if info.st_uid != os.geteuid() or info.st_mode & 0o077 or not stat.S_ISREG(info.st_mode):
            return None
        key = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    return key if len(key) == KEY_BYTES else None


def _new_key(path: Path) -> bytes | None:
    import secrets  # (here, not at the top: the warm checker's client needs only the folders)

    key = secrets.token_bytes(KEY_BYTES)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:  # another grader made it just now
        return _key()
    except OSError:
        return None
    try:
        os.write(fd, key)
    finally:
        os.close(fd)
    return key


def seal(data: bytes) -> bytes | None:
    """``data`` with its HMAC in front (64 hex digits and a newline); None where there is no key."""
    import hashlib
    import hmac

    key = _key()
    if key is None:
        return None
    return hmac.new(key, data, hashlib.sha256).hexdigest().encode() + b"\n" + data


def unseal(sealed: bytes) -> bytes | None:
    """The data of a :func:`seal` ed file, or None when its HMAC does not match (or no key)."""
    import hashlib
    import hmac

    key = _key()
    mac, _, data = sealed.partition(b"\n")
    if key is None or not hmac.compare_digest(mac, hmac.new(key, data, hashlib.sha256).hexdigest().encode()):
        return None
    return data


def kept(folder: str, name: str, make: Callable[[], bytes]) -> bytes:
    """``make()``'s bytes, kept sealed in ``trusted_folder(folder)/name`` for the next process.

    Read back when the file is there and sealed with this cache's key; made (and kept)
    otherwise. ``name`` must say everything the bytes depend on (a checksum of the inputs
    and of the Python that made them), since nothing else tells a kept file from a stale
    one. A cache that cannot be trusted, read or written only means making them again;
    what ``make`` raises is raised, and nothing is kept.
    """
    from menace_course.atomic import write_atomic  # (here: the warm checker's client imports this module)

    where = trusted_folder_name(folder)
    path = os.path.join(where, name) if where is not None else None
    if path is not None:
        try:
            with open(path, "rb") as stored:
                data = unseal(stored.read())
        except OSError:
            data = None
        if data is not None:
            return data
    data = make()
    sealed = seal(data) if path is not None else None
    if path is not None and sealed is not None:
        from pathlib import Path

        try:
            write_atomic(Path(path), sealed)
        except OSError:
            pass  # a read-only cache is not an error: made again next time
    return data
