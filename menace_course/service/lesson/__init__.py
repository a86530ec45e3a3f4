"""The lesson page, ``/lesson``: MENACE to watch, train and play, its programs and challenges.

Register it in an app with ``app.register_blueprint(blueprint)``. It needs the app to
serve ``menace_course/service/static`` at ``/static`` (Flask's default for the service's
app) and reads two settings: ``MENACE_COURSE`` (the course folder; else found as
``menace`` finds it) and ``MENACE_SANDBOX`` (``auto``, ``bwrap`` or ``process``).
"""

from menace_course.service.lesson.views import blueprint

__all__ = ["blueprint"]
