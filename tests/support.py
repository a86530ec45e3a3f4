"""What several test folders share: the repository's root and a command's outcome."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Ran:
    """What one ``menace`` command did: its exit code and what it printed."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        """The output, read as JSON."""
        return json.loads(self.out)
