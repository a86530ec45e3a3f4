"""A lesson widget's settings, from JSON: the rewards, the starting beads and symmetry.

They are chosen before Start and stay with the widget, as part of what it is (with its seed
and log): ``{"reward": [win, draw, loss], "start": [1st, 2nd, 3rd, 4th], "symmetry": bool}``.
Whatever is left out is Michie's. :func:`engine_settings` turns them into the engine's
:class:`~menace_course.lesson.engine.Settings`, the same way ``menace experiment games``
turns its options into them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from menace_course.lesson.engine import MICHIE, Settings
from menace_course.lesson.experiments.games import make_settings
from menace_course.service.languages import gettext as _

__all__ = ["DEFAULT_SETTINGS", "BadRequest", "engine_settings", "parse_settings", "whole"]


class BadRequest(ValueError):
    """A log or an action that does not describe a game: the message says what is wrong."""


def whole(value: object, low: int, high: int, what: str) -> int:
    """``value`` if it is a whole number from ``low`` to ``high``; else a :class:`BadRequest`."""
    if type(value) is not int or not low <= value <= high:
        raise BadRequest(
            _("%(what)s must be a whole number from %(low)s to %(high)s")
            % {"what": what, "low": low, "high": high}
        )
    return value


#: The settings' defaults (Michie's) and their bounds.
DEFAULT_SETTINGS: dict[str, Any] = {"reward": [3, 1, -1], "start": [4, 3, 2, 1], "symmetry": True}
REWARD_RANGE, START_RANGE = (-10, 10), (1, 99)


def parse_settings(data: object) -> dict[str, Any]:
    """A widget's settings from JSON, checked, with Michie's numbers for what is left out."""
    if data is None:
        return dict(DEFAULT_SETTINGS)
    if not isinstance(data, Mapping):
        raise BadRequest(_("settings must be an object: %(shape)s") % {"shape": "{reward, start, symmetry}"})
    unknown = set(data) - set(DEFAULT_SETTINGS)
    if unknown:
        raise BadRequest(
            _("settings has no %(key)s: only %(keys)s")
            % {"key": repr(sorted(unknown)[0]), "keys": "'reward', 'start', 'symmetry'"}
        )
    settings = dict(DEFAULT_SETTINGS)
    for key, size, (low, high), what in (
        ("reward", 3, REWARD_RANGE, _("a reward")),
        ("start", 4, START_RANGE, _("a number of starting beads")),
    ):
        if key in data:
            value = data[key]
            if not isinstance(value, list) or len(value) != size:
                raise BadRequest(
                    _("%(key)s must be a list of %(n)s whole numbers") % {"key": f"settings.{key}", "n": size}
                )
            settings[key] = [whole(n, low, high, what) for n in value]
    if "symmetry" in data:
        if not isinstance(data["symmetry"], bool):
            raise BadRequest(_("%(key)s must be true or false") % {"key": "settings.symmetry"})
        settings["symmetry"] = data["symmetry"]
    return settings


def engine_settings(settings: Mapping[str, Any]) -> Settings:
    """The engine's :class:`Settings` for a widget's checked settings."""
    if dict(settings) == DEFAULT_SETTINGS:
        return MICHIE
    return make_settings(settings["reward"], settings["start"], settings["symmetry"])
