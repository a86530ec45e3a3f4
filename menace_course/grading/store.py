"""Keep every student's record on disk, so that no crash loses one or leaves one half-written.

Each record is its own file, ``OUT/.results/<key>.json``, written to a temporary file,
flushed to disk and renamed over the old one (:func:`menace_course.atomic.write_atomic`): a reader sees the
old record or the new one, never a mix, whatever kills the grader and when. A record
that cannot be read anyway (edited by hand, say) counts as missing and is graded again.

Only one ``menace grade`` may write to an OUT at a time: :meth:`ResultStore.open` takes
a lock that the operating system releases when the process ends, however it ends.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from menace_course.atomic import remove_partial, write_atomic
from menace_course.errors import UsageError
from menace_course.grading.record import Record

RESULTS_DIR = ".results"
_LOCK = ".lock"


@dataclass(frozen=True)
class Kept:
    """The parts of a kept record that decide whether it is graded again."""

    challenge: str
    suite_hash: str
    digest: str
    score: float


class ResultStore:
    """The records of one OUT folder, one JSON file per student.

    Example:
        with ResultStore(out) as store:
            store.save(record)
            again = store.load(record.grading.key)
    """

    def __init__(self, out: Path) -> None:
        """Name the store; nothing is touched until it is opened."""
        self.out = out
        self.folder = out / RESULTS_DIR
        self._lock: IO[str] | None = None

    def __enter__(self) -> ResultStore:
        """Open the store (see :meth:`open`)."""
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Release the lock."""
        self.close()

    def open(self) -> None:
        """Create the folder, take the lock and clear what a killed run left half-written.

        Raises:
            UsageError: OUT cannot be created, or another ``menace grade`` is writing to it.
        """
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._lock = (self.folder / _LOCK).open("a")
        except OSError as error:
            raise UsageError(f"cannot write to {self.out}: {error.strerror}") from error
        if not _try_lock(self._lock):
            self.close()
            raise UsageError(
                f"another menace grade is writing to {self.out}; wait for it, or use another --out"
            )
        remove_partial(self.folder)
        remove_partial(self.out)

    def close(self) -> None:
        """Release the lock (closing the file releases it)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def path(self, key: str) -> Path:
        """Where the record of ``key`` is kept."""
        return self.folder / f"{key}.json"

    def _read(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        ok = isinstance(data, dict) and isinstance(data.get("grading"), dict)
        return data if ok else None

    def load(self, key: str) -> Record | None:
        """The record of ``key``, or None when there is none that can be read."""
        data = self._read(key)
        if data is None:
            return None
        try:
            return Record.from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    def summary(self, key: str) -> Kept | None:
        """What the plan needs of a kept record (also of one an older version wrote), or None."""
        data = self._read(key)
        if data is None:
            return None
        try:
            return Kept(
                challenge=str(data.get("challenge")),
                suite_hash=str(data.get("suite_hash")),
                digest=str(data["grading"].get("digest")),
                score=float(data.get("score") or 0.0),
            )
        except (TypeError, ValueError):
            return None

    def save(self, record: Record) -> None:
        """Keep ``record`` under its key, replacing the old one in a single step."""
        text = json.dumps(record.to_dict(), ensure_ascii=False, sort_keys=True)
        write_atomic(self.path(record.grading.key), text)

    def keys(self) -> set[str]:
        """Keys of every record kept, including those of students no longer in SUBMISSIONS."""
        return {p.stem for p in self.folder.glob("*.json") if not p.name.startswith(".")}


def _try_lock(handle: IO[str]) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; running two graders at once is on the user
        return True
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True
