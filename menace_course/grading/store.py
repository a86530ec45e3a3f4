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
from pathlib import Path
from typing import IO, Any

from menace_course.atomic import remove_partial, write_atomic
from menace_course.errors import UsageError

RESULTS_DIR = ".results"
_LOCK = ".lock"


class ResultStore:
    """The records of one OUT folder, one JSON file per student.

    Example:
        with ResultStore(out) as store:
            store.save(record)
            again = store.load(record["grading"]["key"])
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

    def load(self, key: str) -> dict[str, Any] | None:
        """The record of ``key``, or None when there is none that can be read."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        ok = isinstance(data, dict) and isinstance(data.get("grading"), dict)
        return data if ok else None

    def save(self, record: dict[str, Any]) -> None:
        """Keep ``record`` under its key, replacing the old one in a single step."""
        key = record["grading"]["key"]
        write_atomic(self.path(key), json.dumps(record, ensure_ascii=False, sort_keys=True))

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
