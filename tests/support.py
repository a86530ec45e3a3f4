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


def js_words(module: str) -> Any:
    """The ``WORDS`` table a front-end module exports (e.g. ``src/check/client.js``), read by node.

    The Python side renders the same sentences in the page's language; a test compares the two
    so that they cannot drift apart. Skipped where node is not installed (CI installs it).
    """
    import shutil
    import subprocess

    import pytest

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (CI installs it)")
    script = f"import('./{module}').then((m) => process.stdout.write(JSON.stringify(m.WORDS)))"
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        cwd=REPO / "frontend",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)
