"""Submissions folders that attack ``menace grade`` itself, not the sandbox (issue 8, item 7).

Git cannot hold a FIFO, a socket or a file name that is not UTF-8, so each attack is a
function that builds its SUBMISSIONS folder byte for byte as ``unzip`` or ``tar`` leave
it. ``tests/grade/test_hostile_batch.py`` grades each with the real ``menace grade`` and
checks the verdicts in ``EXPECTED``. To try one by hand, as an attacker would::

    python tests/corpus/hostile_batch/attacks.py /tmp/attacks
    menace grade /tmp/attacks/symlinks --challenge after_game --out /tmp/graded

Every attack keeps one honest student, ``alice``, whose work the others try to take.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path

RIGHT = """\
def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + {"win": 3, "draw": 1, "loss": -1}[result])
    return new
"""
#: Scores 0: it gives back its input unchanged.
NOTHING = "def after_game(beads, square, result):\n    return beads\n"
REPO = Path(__file__).resolve().parents[3]


def _file(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def non_utf8_names(root: Path) -> None:
    """Names ``unzip`` makes of a Windows zip: Latin-1 bytes, not UTF-8 (``M\\xfcller.py``).

    They crashed the whole batch: the entry's digest and the record could not be encoded.
    """
    _file(root / "alice.py", RIGHT)
    bytes_root = os.fsencode(root)
    (Path(os.fsdecode(bytes_root + b"/M\xfcller.py"))).write_text(RIGHT, encoding="utf-8")
    folder = Path(os.fsdecode(bytes_root + b"/J\xf6rg"))
    _file(folder / "after_game.py", NOTHING)
    _file(Path(os.fsdecode(bytes_root + b"/ana/l\xe9on_after_game.py")), RIGHT)
    _file(Path(os.fsdecode(bytes_root + b"/\x81\x8d.py")), NOTHING)  # no character in cp1252


def colliding_keys(root: Path) -> None:
    """Names that reduce to the same file name in OUT: one record was lost, another shown twice."""
    for name in ("alice", "bob", "bob!", "bob-2", "Bob", "bob (2)", "bob?", "bob*", "bob:", "BOB"):
        _file(root / f"{name}.py", RIGHT if name == "bob" else NOTHING)


def symlinks(root: Path) -> None:
    """Links that ``unzip`` and ``tar`` keep, pointing at other students' work or the grader's files.

    mallory's folder links to alice's file, carol *is* a link to it, dave's folder is a link
    to alice's folder, erin links to the course's reference solution (outside the
    submissions folder), and frank's link points into his own folder.
    """
    _file(root / "alice.py", RIGHT)
    _file(root / "alice_notes" / "after_game.py", RIGHT)
    (root / "mallory").mkdir()
    os.symlink("../alice.py", root / "mallory" / "after_game.py")
    os.symlink("alice.py", root / "carol.py")
    os.symlink("alice_notes", root / "dave")
    (root / "erin").mkdir()
    os.symlink(REPO / "reference" / "after_game.py", root / "erin" / "after_game.py")
    _file(root / "frank" / "src" / "mine.py", NOTHING)
    os.symlink("src/mine.py", root / "frank" / "after_game.py")
    _file(root / "gus" / "readme.txt", "see link")
    os.symlink("../alice_notes", root / "gus" / "work")


def hard_link(root: Path) -> None:
    """A hard link (tar keeps those too) to another student's file: it cannot be told from a copy.

    Both entries are graded, and both records say ``needs review``.
    """
    _file(root / "alice.py", RIGHT)
    (root / "hal").mkdir()
    os.link(root / "alice.py", root / "hal" / "after_game.py")


def special_files(root: Path) -> None:
    """A FIFO, a socket and a FIFO named like the answer: reading a FIFO blocked discovery for ever."""
    _file(root / "alice.py", RIGHT)
    (root / "fred").mkdir()
    os.mkfifo(root / "fred" / "after_game.py")
    _file(root / "gina" / "after_game.py", NOTHING)
    os.mkfifo(root / "gina" / "notes.py")
    os.mkfifo(root / "hank.py")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(root / "ivan.py"))


def deep_and_wide(root: Path) -> None:
    """A folder nested 1,100 deep and one with 6,000 files: discovery must stay bounded.

    ``os.walk`` recurses on Python 3.11, and this depth ended the batch with RecursionError.
    (Remove it with :func:`remove`: ``shutil.rmtree`` recurses too.) Lea's answer sits
    beside the wide folder, not in it: the walk reads only so many names of a folder, in
    the order the file system gives them, so an answer among 6,000 files may be one it
    never reads.
    """
    _file(root / "alice.py", RIGHT)
    deep = root / "kim"
    deep.mkdir()
    here = os.open(deep, os.O_RDONLY)
    try:
        for _ in range(1100):
            os.mkdir("d", dir_fd=here)
            inner = os.open("d", os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = inner
        fd = os.open("after_game.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here)
        os.write(fd, RIGHT.encode())
        os.close(fd)
    finally:
        os.close(here)
    _file(root / "kim" / "after_game.py", NOTHING)
    wide = root / "lea" / "downloads"
    wide.mkdir(parents=True)
    for n in range(6000):
        (wide / f"f{n:05}.txt").touch()
    _file(root / "lea" / "after_game.py", NOTHING)


ATTACKS: dict[str, Callable[[Path], None]] = {
    f.__name__: f for f in (non_utf8_names, colliding_keys, symlinks, hard_link, special_files, deep_and_wide)
}


def remove(root: Path) -> None:
    """Delete an attack's folder, however deep (``shutil.rmtree`` recurses, and fails past ~1,000 levels)."""
    folders, stack = [], [str(root)]
    while stack:
        folder = stack.pop()
        folders.append(folder)
        with os.scandir(folder) as listing:
            for child in listing:
                if child.is_dir(follow_symlinks=False):
                    stack.append(child.path)
                else:
                    os.unlink(child.path)
    for folder in reversed(folders):
        os.rmdir(folder)


def build(name: str, root: Path) -> Path:
    """Make the SUBMISSIONS folder of attack ``name`` at ``root`` (which must not exist yet)."""
    root.mkdir(parents=True)
    ATTACKS[name](root)
    return root


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "hostile_batch")
    for attack in ATTACKS:
        print(build(attack, target / attack))
