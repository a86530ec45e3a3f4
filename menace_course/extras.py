"""The package's optional parts (its "extras"), and the one-line answer when one is missing.

``pip install menace-course`` installs what a student's ``menace check`` runs (click, rich,
jinja2). Everything else is an extra, installed by name::

    menace-course[grader]   hypothesis: hidden and property tests (menace grade, validate,
                            kit, export, a check inside the course folder)
    menace-course[plots]    matplotlib: the class report's charts, experiment --picture
    menace-course[service]  the check service: menace serve, users, lti, worker

A command that needs a missing extra ends with exit 2 and one line saying what to install
(:class:`MissingExtra`), never a ``ModuleNotFoundError`` traceback: commands check up front
with :func:`require`, and :func:`menace_course.cli.main` turns a stray
``ModuleNotFoundError`` for one of the modules below into the same line.
"""

from __future__ import annotations

import importlib.util
from typing import ClassVar

from menace_course.errors import UsageError

#: extra -> the top-level modules the package imports from it (pyproject.toml says the versions).
EXTRAS: dict[str, tuple[str, ...]] = {
    "grader": ("hypothesis",),
    "plots": ("matplotlib",),
    "service": (
        "flask",
        "flask_wtf",
        "flask_limiter",
        "werkzeug",
        "wtforms",
        "limits",
        "sqlalchemy",
        "alembic",
        "apispec",
        "marshmallow",
        "gunicorn",
        "psycopg",
        "procrastinate",
        "pylti1p3",
        "requests",
        "jwt",
        "jwcrypto",
        "cryptography",
    ),
}


class MissingExtra(UsageError):
    """A command needs an extra that is not installed: the message says which, and how."""

    exit_code: ClassVar[int] = 2

    def __init__(self, extras: tuple[str, ...], purpose: str, modules: tuple[str, ...]) -> None:
        """Say what needs the extras, which modules are missing, and the pip command."""
        names = f"menace-course[{','.join(extras)}]"
        absent = " and ".join(modules)
        are = "are" if len(modules) > 1 else "is"
        super().__init__(
            f'{purpose} needs {absent}, which {are} not installed: install {names} (pip install "{names}")'
        )
        self.extras = extras
        self.modules = modules


def installed(module: str) -> bool:
    """True when the top-level ``module`` can be imported here (it is not imported)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules, a broken parent
        return False


def missing(extra: str) -> str | None:
    """The first module of ``extra`` that is not installed, or None when all of them are."""
    return next((module for module in EXTRAS[extra] if not installed(module)), None)


def require(extra: str, purpose: str) -> None:
    """Raise :class:`MissingExtra` unless every module of ``extra`` is installed.

    ``purpose`` starts the message: ``"menace serve"`` gives "menace serve needs flask,
    which is not installed: install menace-course[service] (...)".
    """
    absent = missing(extra)
    if absent is not None:
        raise MissingExtra((extra,), purpose, (absent,))


def extra_of(module_name: str) -> str | None:
    """The extra that provides ``module_name`` (``"flask.app"`` -> ``"service"``), if any."""
    top = module_name.partition(".")[0]
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)
