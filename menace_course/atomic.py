"""Write a file whole or not at all: the one way menace replaces a file.

What is written goes to a temporary file beside the target, is flushed to disk
(``fsync``) and renamed over the target in one step. A reader sees the old file or the
new one, never a mix, whatever kills the writer and when; a killed writer leaves only
its temporary file, ``.<name>.<pid>.tmp``, which :func:`remove_partial` clears.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

#: The suffix of a writer's temporary file (``.<name>.<pid>.tmp``).
TMP_SUFFIX = ".tmp"


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[Path]:
    tmp = path.with_name(f".{path.name}.{os.getpid()}{TMP_SUFFIX}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _open(tmp: Path, mode: int) -> int:
    # The file has its final mode (less the umask) from its first byte: a private key, written
    # with mode 0o600, is never readable by others, not even for a moment.
    return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)


@contextlib.contextmanager
def atomic_writer(path: Path, newline: str | None = None, *, mode: int = 0o666) -> Iterator[IO[str]]:
    """A text file to write that replaces ``path`` only when the ``with`` block ends well."""
    with (
        _replacing(path) as tmp,
        os.fdopen(_open(tmp, mode), "w", encoding="utf-8", newline=newline) as handle,
    ):
        yield handle
        handle.flush()
        os.fsync(handle.fileno())


@contextlib.contextmanager
def atomic_binary_writer(path: Path, *, mode: int = 0o666) -> Iterator[IO[bytes]]:
    """Like :func:`atomic_writer`, for bytes (a zip archive, say)."""
    with _replacing(path) as tmp, os.fdopen(_open(tmp, mode), "wb") as handle:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())


def write_atomic(path: Path, data: str | bytes, *, mode: int = 0o666) -> None:
    """Replace ``path`` with ``data`` in one step (text is written as UTF-8)."""
    if isinstance(data, bytes):
        with atomic_binary_writer(path, mode=mode) as handle:
            handle.write(data)
    else:
        with atomic_writer(path, mode=mode) as handle:
            handle.write(data)


def remove_partial(folder: Path) -> None:
    """Delete temporary files a killed writer left in ``folder`` (never a finished file)."""
    for tmp in folder.glob(f".*{TMP_SUFFIX}"):
        tmp.unlink(missing_ok=True)
