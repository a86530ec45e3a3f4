"""Where menace keeps what it can make again: generated examples and compiled templates.

``$MENACE_CACHE_DIR`` names the folder; otherwise it is ``menace-course`` in the user's
cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``). Everything here may be deleted at any
time; a folder that cannot be written only makes menace slower.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The cache folder (it may not exist yet)."""
    explicit = os.environ.get("MENACE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "menace-course"
