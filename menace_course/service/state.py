"""What a running service holds: its settings, database, dispatcher and course, in one place.

:func:`create_app <menace_course.service.app.create_app>` builds a :class:`ServiceState`
and keeps it in ``app.extensions["menace"]``; request code reaches it through :func:`state`.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from menace_course.course import Course
from menace_course.models import SubmissionReport
from menace_course.service.config import ServiceConfig
from menace_course.service.db.attempts import mark_running, record_result
from menace_course.service.db.engine import Database
from menace_course.service.dispatch.base import Dispatcher
from menace_course.service.lti.outbox import note_result


@dataclass
class ServiceState:
    """The service's parts (see the module's docstring)."""

    config: ServiceConfig
    course: Course
    db: Database
    dispatcher: Dispatcher
    local_context_id: int


class DatabaseRecorder:
    """The :class:`~menace_course.service.dispatch.base.Recorder` that writes attempts' progress."""

    def __init__(self, db: Database) -> None:
        """Record into ``db``."""
        self.db = db

    def started(self, attempt_id: str) -> bool:
        """Mark the attempt running; False when it is done already."""
        with self.db.writing(durable=False) as session:
            return mark_running(session, attempt_id)

    def finished(self, attempt_id: str, report: SubmissionReport) -> bool:
        """Store the report once; True when this call stored it."""
        with self.db.writing(durable=False) as session:
            recorded = record_result(session, attempt_id, report)
            if recorded:  # LTI: queue the score's passback to the LMS, in the same transaction
                note_result(session, attempt_id)
            return recorded


def state() -> ServiceState:
    """The running service's state (inside a request or an app context)."""
    found: ServiceState = current_app.extensions["menace"]
    return found
