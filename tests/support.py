"""What several test folders share: the repository's root, a command's outcome, the processes running."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
#: The folders of the repository's course, public and private.
COURSE_PARTS = ("challenges", "hidden_tests", "reference", "feedback_templates")

#: Submissions that end themselves as they load, and the exit code each ends with under
#: bubblewrap (whose init reports a signal N as 128 + N): every sandbox must report the same.
SELF_ENDINGS = {
    "kills itself": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", 128 + 9),
    "terminates itself": ("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n", 128 + 15),
    "terminates its process group": ("import os, signal\nos.kill(0, signal.SIGTERM)\n", 128 + 15),
    "aborts": ("import os\nos.abort()\n", 128 + 6),
    "exits with 3": ("import os\nos._exit(3)\n", 3),
}


def copy_course(target: Path) -> Path:
    """A copy of the repository's course (public and private parts) at ``target``, to change freely."""
    for part in COURSE_PARTS:
        shutil.copytree(REPO / part, target / part, ignore=shutil.ignore_patterns("__pycache__"))
    return target


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


def processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every live process this host shows (no zombies)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        if state in ("Z", "X"):  # finished; its parent only has to collect it
            continue
        command = cmdline.replace(b"\0", b" ").decode("utf-8", "replace").strip()
        found[int(entry.name)] = (int(parent), command)
    return found


def descendants(pid: int, table: dict[int, tuple[int, str]]) -> set[int]:
    """Every process of ``table`` (from :func:`processes`) below ``pid``."""
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, (its_parent, _) in table.items() if its_parent == parent]
        found.update(children)
        frontier += children
    return found
