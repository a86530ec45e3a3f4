"""The course's challenges: each folder ``challenges/<slug>/`` read into a :class:`Challenge`.

A challenge folder holds ``challenge.toml`` (metadata and the visible examples),
``README.md`` (the text students read) and ``starter.py``. Its hidden tests live apart,
in ``hidden_tests/<slug>/``, and its reference in ``reference/<slug>.py``.

``challenge.toml``::

    title = "Back into the box"
    stars = 1
    function = "after_game"
    params = ["beads", "square", "result"]
    pure = true                   # the function must not change its arguments
    example_hint = "read_the_rules"
    [limits]                      # optional; any field of limits.Limits
    call_seconds = 2.0
    [[examples]]                  # shown to students in full
    args = [[4, 4, 0, 0, 4, 0, 0, 0, 0], 4, "win"]
    expected = [4, 4, 0, 0, 7, 0, 0, 0, 0]
    [[examples]]                  # args_py / expected_py: Python literals, for tuples and
    args = ["    O   X"]          # dicts with number keys, which TOML cannot write
    expected_py = "{0: 3, 1: 3, 2: 3, 5: 3}"
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from menace_course.course import Course
from menace_course.errors import CourseError, UnknownChallenge
from menace_course.limits import Limits

SLUG_PATTERN = re.compile(r"^[a-z][a-z0-9_]{1,39}$")


@dataclass(frozen=True)
class Example:
    """A visible example: a call and the value it must give back."""

    args: tuple[Any, ...]
    expected: Any
    hint: str | None = None


@dataclass(frozen=True)
class Challenge:
    """One challenge's metadata, as read from its folder."""

    slug: str
    title: str
    stars: int
    function: str
    params: tuple[str, ...]
    pure: bool
    examples: tuple[Example, ...]
    folder: Path
    example_hint: str | None = None
    limits: Limits = field(default_factory=Limits)
    mutant_threshold: float = 0.9
    equivalent_mutants: tuple[str, ...] = ()

    @property
    def starter(self) -> Path:
        """The starter file students begin from."""
        return self.folder / "starter.py"

    @property
    def text(self) -> Path:
        """The challenge text (markdown)."""
        return self.folder / "README.md"


def list_slugs(course: Course) -> list[str]:
    """Slugs of every challenge in the course, sorted."""
    folder = course.challenges_dir
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / "challenge.toml").is_file())


def load_challenge(course: Course, slug: str) -> Challenge:
    """Read one challenge.

    Raises:
        UnknownChallenge: no folder by that name (with suggestions).
        CourseError: the folder exists but its metadata is malformed.
    """
    slugs = list_slugs(course)
    if slug not in slugs:
        raise UnknownChallenge(slug, slugs)
    folder = course.challenges_dir / slug
    path = folder / "challenge.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise CourseError(f"{path}: cannot read it: {error}") from error
    try:
        return _challenge_from(data, slug, folder)
    except (KeyError, TypeError, ValueError) as error:
        raise CourseError(f"{path}: {error}") from error


def _value(entry: dict[str, Any], key: str) -> Any:
    """An example's ``args`` or ``expected``: TOML, or ``<key>_py``, a Python literal.

    TOML has no tuples and only string keys, so a value such as ``('    O   X', [8, 5, 2])``
    or ``{0: 3, 1: 3}`` is written as a string of Python: ``expected_py = "{0: 3, 1: 3}"``.
    """
    if f"{key}_py" in entry:
        try:
            return ast.literal_eval(str(entry[f"{key}_py"]))
        except (SyntaxError, ValueError) as error:
            raise ValueError(f"{key}_py is not a Python literal: {entry[f'{key}_py']!r}") from error
    return entry[key]


def _challenge_from(data: dict[str, Any], slug: str, folder: Path) -> Challenge:
    examples = tuple(
        Example(args=tuple(_value(e, "args")), expected=_value(e, "expected"), hint=e.get("hint"))
        for e in data.get("examples", [])
    )
    known_limits = {f.name for f in fields(Limits)}
    limit_values = data.get("limits", {})
    unknown = set(limit_values) - known_limits
    if unknown:
        raise ValueError(f"unknown limits: {', '.join(sorted(unknown))}")
    validation = data.get("validate", {})
    return Challenge(
        slug=slug,
        title=str(data["title"]),
        stars=int(data.get("stars", 1)),
        function=str(data["function"]),
        params=tuple(data.get("params", ())),
        pure=bool(data.get("pure", False)),
        examples=examples,
        folder=folder,
        example_hint=data.get("example_hint"),
        limits=Limits(**limit_values),
        mutant_threshold=float(validation.get("mutant_threshold", 0.9)),
        equivalent_mutants=tuple(validation.get("equivalent_mutants", ())),
    )


def load_all(course: Course) -> list[Challenge]:
    """Every challenge of the course."""
    return [load_challenge(course, slug) for slug in list_slugs(course)]


def detect(course: Course, defined: set[str]) -> list[Challenge]:
    """The challenges whose function a file defines (a file may answer several)."""
    return [c for c in load_all(course) if c.function in defined]
