"""Who runs the checks: the :class:`~.base.Dispatcher` protocol, and the embedded local pool.

:func:`make_dispatcher` picks the implementation for a configuration; the distributed
form (issue 11) adds its own branch here and nowhere else.
"""

from __future__ import annotations

from menace_course.service.config import ServiceConfig
from menace_course.service.dispatch.base import CheckJob, Dispatcher, QueueFull, Recorder

__all__ = ["CheckJob", "Dispatcher", "QueueFull", "Recorder", "make_dispatcher"]


def make_dispatcher(config: ServiceConfig) -> Dispatcher:
    """The dispatcher ``config`` asks for: the in-process pool of warm graders, or the queue."""
    if config.queue == "procrastinate":
        from menace_course.service.dispatch.procrastinate_web import ProcrastinateDispatcher

        return ProcrastinateDispatcher(config)
    from menace_course.service.dispatch.local import LocalPool

    return LocalPool.of(config)
