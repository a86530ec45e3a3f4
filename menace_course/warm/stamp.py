"""What a warm checker must share with a client to serve it, and where its socket is.

The client computes this before importing anything heavy, so it uses only ``os`` and ``sys``
(about 2 ms for this package's files), and finds its socket as a string (:func:`socket_file`:
not even pathlib). The warm checker computes it too, once, after it has
taken the client's ``sys.path``; the two must be equal to the character.
"""

from __future__ import annotations

import os
import sys
import zlib

TYPE_CHECKING = False  # (typing and pathlib cost the client more than the rest of this module)
if TYPE_CHECKING:
    from pathlib import Path

#: Environment variables that change how Python starts or what it imports.
_INTERPRETER_VARIABLES = ("PYTHON", "LC_", "LANG")
#: A Unix socket's path is at most 107 bytes on Linux; longer ones get no warm checker.
SOCKET_PATH_LIMIT = 100
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def stamp() -> str:
    """Everything that decides what a warm checker started now would have imported.

    Example:
        >>> stamp().splitlines()[0] == sys.executable
        True
    """
    # The machine too: a home folder shared by several machines (NFS) holds each one's socket.
    lines = [sys.executable, sys.version.replace("\n", " "), str(os.geteuid()), os.uname().nodename]
    lines += [repr(sys.path), repr(sys.flags)]
    lines += sorted(
        f"{name}={value}" for name, value in os.environ.items() if name.startswith(_INTERPRETER_VARIABLES)
    )
    lines += [f"{entry} {_changed(entry)}" for entry in sys.path]
    lines += _package_files(_PACKAGE)
    return "\n".join(lines)


def socket_path(for_stamp: str) -> Path | None:
    """The socket of the warm checker for ``for_stamp``; None where none can be trusted or made.

    It lives in the user's private cache folder: never in a folder another user could write.
    """
    from pathlib import Path

    path = socket_file(for_stamp)
    return Path(path) if path is not None else None


def socket_file(for_stamp: str) -> str | None:
    """:func:`socket_path` as a string, found with ``os`` alone (the client's way)."""
    from menace_course.cache import trusted_folder_name

    folder = trusted_folder_name("warm")
    if folder is None:
        return None
    path = os.path.join(folder, f"{zlib.crc32(for_stamp.encode('utf-8', 'surrogateescape')):08x}.sock")
    return path if len(os.fsencode(path)) <= SOCKET_PATH_LIMIT else None


def _changed(folder: str) -> int:
    """When ``folder`` last changed (a package installed or removed there); 0 if it is not one."""
    try:
        return os.stat(folder or ".").st_mtime_ns
    except OSError:
        return 0


def _package_files(folder: str) -> list[str]:
    """``path size mtime`` of every ``.py`` file of this package, in a stable order."""
    found: list[str] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return found
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                found += _package_files(entry.path)
        elif entry.name.endswith(".py"):
            info = entry.stat(follow_symlinks=False)
            found.append(f"{entry.path} {info.st_size} {info.st_mtime_ns}")
    return found
