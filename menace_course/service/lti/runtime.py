"""What the LTI part of a running service holds: keys, tool config, storage, passback worker.

:func:`lti_state` builds one :class:`LtiState` per app, the first time a request needs it
(making the tool's key on the first run), and keeps it in ``app.extensions["menace_lti"]``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

import requests
from flask import current_app

from menace_course import catalog
from menace_course.checking.suite import SUITES
from menace_course.course import Course
from menace_course.errors import MenaceError
from menace_course.service.db.engine import Database
from menace_course.service.lti.keys import KeyStore
from menace_course.service.lti.passback import GradeColumn, PassbackSender, TimeoutSession
from menace_course.service.lti.storage import DbLaunchDataStorage
from menace_course.service.lti.toolconf import DbToolConf

#: The tool's keys live here, inside the service's state folder (``<course>/.menace``).
KEYS_FOLDER = "lti-keys"


def keys_folder(state_dir: Path) -> Path:
    """Where the tool's keys are kept for a service whose state folder is ``state_dir``."""
    return state_dir / KEYS_FOLDER


@dataclass(frozen=True)
class ChallengeChoice:
    """A challenge as the deep-linking picker shows it."""

    slug: str
    title: str
    stars: int
    max_score: float
    policy: str


@dataclass
class LtiState:
    """The LTI parts of one running service."""

    course: Course
    db: Database
    keys: KeyStore
    toolconf: DbToolConf
    storage: DbLaunchDataStorage
    worker: PassbackSender = field(init=False)

    def __post_init__(self) -> None:
        """Make the passback worker (started by :func:`install`)."""
        self.worker = PassbackSender(self.db, self.keys, self.passback_info)

    @classmethod
    def build(cls, course: Course, db: Database, state_dir: Path) -> LtiState:
        """The LTI state of a service on ``course`` and ``db``, its keys under ``state_dir``."""
        keys = KeyStore(keys_folder(state_dir))
        return cls(course, db, keys, DbToolConf(db, keys), DbLaunchDataStorage(db))

    def http(self) -> requests.Session:
        """A session for calls to a platform (its JWKS): every call has a timeout."""
        return TimeoutSession()

    def challenge_slugs(self) -> list[str]:
        """The course's challenges."""
        return catalog.list_slugs(self.course)

    def max_score(self, slug: str) -> float:
        """A challenge's maximum score: the points of all its checks (examples and hidden).

        Asked of the process's :data:`~menace_course.checking.suite.SUITES`, kept by content:
        after an instructor adds or edits a hidden test, the next passback sends the new
        maximum, the same as the checks' (no restart).
        """
        return SUITES.maximum(self.course, slug)

    def challenge_list(self) -> list[ChallengeChoice]:
        """Every challenge, for the instructor's pick."""
        return [
            ChallengeChoice(c.slug, c.title, c.stars, self.max_score(c.slug), c.score_policy)
            for c in catalog.load_all(self.course)
        ]

    def policy(self, slug: str) -> str:
        """The challenge's ``score_policy`` ("best" when the challenge cannot be read any more)."""
        try:
            return catalog.load_challenge(self.course, slug).score_policy
        except MenaceError:
            return "best"

    def passback_info(self, slug: str) -> GradeColumn:
        """What passback needs of a challenge (its title, score policy and maximum)."""
        challenge = catalog.load_challenge(self.course, slug)
        return GradeColumn(challenge.title, challenge.score_policy, self.max_score(slug))


_BUILDING = threading.Lock()


def lti_state() -> LtiState:
    """The running service's LTI state (inside a request or an app context), built on first use."""
    app = current_app
    found: LtiState | None = app.extensions.get("menace_lti")
    if found is None:
        with _BUILDING:
            found = app.extensions.get("menace_lti")
            if found is None:
                service = app.extensions["menace"]
                found = LtiState.build(service.course, service.db, service.config.state_dir)
                found.keys.current()  # the first run makes the key
                app.extensions["menace_lti"] = found
    return found
