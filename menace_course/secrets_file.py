"""Where secrets may be written: a private file, and a warning when it would land in git.

``menace users add`` prints tokens. An instructor's course folder is usually a git
repository, and ``menace users add alice bob > tokens.txt`` run there leaves a file of live
tokens one ``git add .`` away from a public remote. :func:`write_private` writes a file only
its owner can read; :func:`tracked_by_git_warning` says, in one sentence, when a file is inside
a git work tree and not ignored there (standard output redirected into one counts too).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable and writable by its owner alone (``0600``), replacing it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(text)


def redirected_stdout_file() -> Path | None:
    """The regular file standard output is redirected into, where the system says (Linux); else None."""
    try:
        if not os.path.isfile(f"/proc/self/fd/{1}"):
            return None
        return Path(os.readlink("/proc/self/fd/1"))
    except OSError:
        return None


def tracked_by_git_warning(path: Path) -> str | None:
    """A warning when ``path`` is in a git work tree and git does not ignore it; else None."""
    folder = path.resolve().parent
    try:
        inside = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--is-inside-work-tree"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            return None
        ignored = subprocess.run(
            ["git", "-C", str(folder), "check-ignore", "-q", str(path.resolve())],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None  # no git: nothing to warn about
    if ignored.returncode == 0:
        return None
    return (
        f"warning: {path} holds live tokens or sign-in links and is inside a git repository that "
        "does not ignore it; move it out of the repository (or add it to .gitignore) before you commit"
    )
