"""A ``--config FILE`` of the service's settings: TOML, every key and type checked, one line if not.

The keys are the settings' names (:class:`~menace_course.service.config.Setting`, the
first column of docs/deploy.md's table); one file may serve ``menace serve`` and ``menace
worker``, each taking its own keys. Bounds and choices are checked afterwards by the
options themselves (:mod:`menace_course.commands.settings`), as for a value typed on the
command line.
"""

from __future__ import annotations

import difflib
import tomllib
import typing
from pathlib import Path
from typing import Any

from menace_course.service.config import settings


class ConfigFileError(ValueError):
    """A config file that cannot be used: unreadable, not TOML, an unknown key or a wrong type."""


def _kind(python_type: Any) -> str:
    if python_type is bool:
        return "true or false"
    if python_type is int:
        return "a whole number"
    if python_type is float:
        return "a number"
    if typing.get_origin(python_type) is tuple:
        return "a list of strings"
    return "a string"


def _fits(python_type: Any, value: Any) -> bool:
    if python_type is bool:
        return isinstance(value, bool)
    if python_type is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if python_type is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if typing.get_origin(python_type) is tuple:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return isinstance(value, str)


def read_file(path: Path) -> dict[str, Any]:
    """A config file's settings by field name (every key and type checked; see the module's docstring).

    Raises:
        ConfigFileError: with a one-line reason that names the file (and the key).
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigFileError(f"cannot read the config file {path}: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise ConfigFileError(f"the config file {path} is not UTF-8 text") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigFileError(f"the config file {path} is not TOML: {error}") from error
    by_name = {about.name: (item.name, python_type) for item, about, python_type in settings()}
    found: dict[str, Any] = {}
    for key, value in data.items():
        if key not in by_name:
            close = difflib.get_close_matches(key, by_name, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else "; the settings are in docs/deploy.md"
            raise ConfigFileError(f"{path}: unknown setting {key!r}{hint}")
        name, python_type = by_name[key]
        if not _fits(python_type, value):
            raise ConfigFileError(f"{path}: {key} must be {_kind(python_type)}, not {type(value).__name__}")
        found[name] = tuple(value) if isinstance(value, list) else value
    return found
