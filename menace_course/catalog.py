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
    score_policy = "best"         # optional: "best" (default) or "latest" attempt counts in an LMS
    [limits]                      # optional; any field of limits.Limits
    call_seconds = 2.0
    [[examples]]                  # shown to students in full
    args = [[4, 4, 0, 0, 4, 0, 0, 0, 0], 4, "win"]
    expected = [4, 4, 0, 0, 7, 0, 0, 0, 0]
    [[examples]]                  # args_py / expected_py: Python literals, for tuples and
    args = ["    O   X"]          # dicts with number keys, which TOML cannot write
    expected_py = "{0: 3, 1: 3, 2: 3, 5: 3}"
    [validate]                    # optional; what menace validate asks of the tests
    mutant_threshold = 0.9
    equivalent_mutants = ["<mutant id>: <why no test can tell it apart>"]
    mutate = ["after_game"]       # only mutate these top-level names of the reference

The file is read once, against the schema the dataclasses :class:`ChallengeFile`,
:class:`ExampleEntry`, :class:`ValidateTable` and :class:`~menace_course.limits.Limits`
declare (:mod:`menace_course.schema` checks every key and type); an unknown key or a
value of the wrong type is a :class:`~menace_course.errors.CourseError` naming the file,
the key and what was expected.
"""

from __future__ import annotations

import ast
import hashlib
import marshal
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from menace_course.cache import kept
from menace_course.course import Course
from menace_course.errors import CourseError, UnknownChallenge
from menace_course.limits import Limits
from menace_course.schema import SchemaError, read_table

SLUG_PATTERN = re.compile(r"^[a-z][a-z0-9_]{1,39}$")
#: ``score_policy``: which attempt's score an LMS gradebook gets (LTI passback, docs/lti.md).
SCORE_POLICIES = ("best", "latest")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# -- the file's schema ---------------------------------------------------------------------


@dataclass(frozen=True)
class ExampleEntry:
    """One ``[[examples]]`` table: ``args`` or ``args_py``, ``expected`` or ``expected_py``."""

    args: tuple[Any, ...] | None = None  #: the arguments, as a TOML array
    args_py: str | None = None  #: or the arguments as a Python literal (a list or tuple)
    expected: Any = None  #: the value the function must give back
    expected_py: str | None = None  #: or that value as a Python literal (tuples, number keys)
    hint: str | None = None  #: a hint id for this example


@dataclass(frozen=True)
class ValidateTable:
    """The ``[validate]`` table: what ``menace validate`` asks of the challenge's tests."""

    mutant_threshold: float = 0.9  #: the share of the reference's mutants the tests must kill
    equivalent_mutants: tuple[str, ...] = ()  #: ``"<mutant id>: <reason>"`` for each
    mutate: tuple[str, ...] = ()  #: top-level names of the reference to mutate (default: all)


@dataclass(frozen=True)
class ChallengeFile:
    """``challenge.toml`` as written: every key it may hold, and its type."""

    title: str
    function: str
    stars: int = 1
    params: tuple[str, ...] = ()
    pure: bool = False  #: the function must not change its arguments
    example_hint: str | None = None  #: the hint of every example that names none
    limits: Limits = field(default_factory=Limits)
    examples: tuple[ExampleEntry, ...] = ()
    validate: ValidateTable = field(default_factory=ValidateTable)
    score_policy: str = "best"  #: which attempt counts in an LMS gradebook: "best" or "latest"


# -- the challenge, as the grader uses it ---------------------------------------------------


@dataclass(frozen=True)
class Example:
    """A visible example: a call and the value it must give back."""

    args: tuple[Any, ...]
    expected: Any
    hint: str | None = None


#: What a starter in a web page's editor says of the challenge's text.
PAGE_POINTER = "The whole text: on this page, above the editor."


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
    mutate: tuple[str, ...] = ()  #: top-level names of the reference validate mutates (empty: all)
    score_policy: str = "best"  #: which checked attempt counts in an LMS gradebook (LTI passback)

    @property
    def starter(self) -> Path:
        """The starter file students begin from."""
        return self.folder / "starter.py"

    @property
    def text(self) -> Path:
        """The challenge text (markdown)."""
        return self.folder / "README.md"

    def starter_on_a_page(self, starter: str) -> str:
        """The starter's text as a web page's editor shows it: the task is on that page.

        A starter says where its whole text is for the terminal (``menace show SLUG``); in a
        browser, where a student may have no terminal at all, it is above the editor.
        """
        return starter.replace(f"The whole text: menace show {self.slug}", PAGE_POINTER)


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
        data = parsed_toml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise CourseError(f"{path}: cannot read it: {error}") from error
    try:
        return _challenge_from(read_table(ChallengeFile, data), slug, folder)
    except SchemaError as error:
        raise CourseError(f"{path}: {error}") from error


class _NotKept(Exception):
    """A parsed table that the cache cannot hold."""

    def __init__(self, table: dict[str, Any]) -> None:
        super().__init__("not kept")
        self.table = table


def parsed_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, from the cache when this Python parsed the same text before.

    Finding which challenge a file answers reads every ``challenge.toml``, in every
    ``menace check`` (tomllib is pure Python: about 3 ms for the lesson's six). The parsed
    tables are kept (:func:`~menace_course.cache.kept`, sealed, named by a checksum of the
    text and the Python); a table marshal cannot hold (a TOML date) is parsed each time.

    Raises:
        tomllib.TOMLDecodeError: the text is not TOML.
    """
    name = hashlib.sha256(f"{sys.version}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def parsed() -> bytes:
        table = tomllib.loads(text)
        try:
            return marshal.dumps(table)
        except ValueError:  # "unmarshallable object": a date
            raise _NotKept(table) from None

    try:
        data = marshal.loads(kept("toml", f"{name}.toml.marshal", parsed))
    except _NotKept as not_kept:
        return not_kept.table
    if not isinstance(data, dict):
        raise TypeError("the cache gave no table")  # (a sealed file is ours: never seen)
    return data


def _literal(text: str, key: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise SchemaError(f"{key}: expected a Python literal, got {text!r}") from error


def _example(entry: ExampleEntry, number: int) -> Example:
    """An example's ``args`` and ``expected``: TOML, or ``<key>_py``, a Python literal.

    TOML has no tuples and only string keys, so a value such as ``('    O   X', [8, 5, 2])``
    or ``{0: 3, 1: 3}`` is written as a string of Python: ``expected_py = "{0: 3, 1: 3}"``.
    """
    where = f"examples[{number}]"
    if (entry.args is None) == (entry.args_py is None):
        raise SchemaError(f"{where}: give args or args_py (one of them)")
    if (entry.expected is None) == (entry.expected_py is None):
        raise SchemaError(f"{where}: give expected or expected_py (one of them)")
    args: Any = entry.args if entry.args_py is None else _literal(entry.args_py, f"{where}.args_py")
    if not isinstance(args, list | tuple):
        raise SchemaError(f"{where}.args_py: expected a list or tuple of arguments, got {args!r}")
    expected = (
        entry.expected if entry.expected_py is None else _literal(entry.expected_py, f"{where}.expected_py")
    )
    return Example(args=tuple(args), expected=expected, hint=entry.hint)


def _check_values(file: ChallengeFile) -> None:
    """What the types alone cannot say: names that are identifiers, numbers in range."""
    for key, name in [
        ("function", file.function),
        *((f"params[{i}]", p) for i, p in enumerate(file.params, 1)),
    ]:
        if not _IDENTIFIER.match(name):
            raise SchemaError(f"{key}: expected a Python name, got {name!r}")
    if file.score_policy not in SCORE_POLICIES:
        raise SchemaError(f'score_policy: expected "best" or "latest", got {file.score_policy!r}')
    if file.stars < 1:
        raise SchemaError(f"stars: expected 1 or more, got {file.stars}")
    if not 0.0 <= file.validate.mutant_threshold <= 1.0:
        raise SchemaError(
            f"validate.mutant_threshold: expected a share from 0 to 1, got {file.validate.mutant_threshold}"
        )
    for name, value in vars(file.limits).items():
        if value < 0 or (value == 0 and name != "processes"):
            raise SchemaError(f"limits.{name}: expected more than 0, got {value}")


def _challenge_from(file: ChallengeFile, slug: str, folder: Path) -> Challenge:
    _check_values(file)
    return Challenge(
        slug=slug,
        title=file.title,
        stars=file.stars,
        function=file.function,
        params=file.params,
        pure=file.pure,
        examples=tuple(_example(e, n) for n, e in enumerate(file.examples, start=1)),
        folder=folder,
        example_hint=file.example_hint,
        limits=file.limits,
        mutant_threshold=file.validate.mutant_threshold,
        equivalent_mutants=file.validate.equivalent_mutants,
        mutate=file.validate.mutate,
        score_policy=file.score_policy,
    )


def load_all(course: Course) -> list[Challenge]:
    """Every challenge of the course."""
    return [load_challenge(course, slug) for slug in list_slugs(course)]


def detect(course: Course, defined: set[str]) -> list[Challenge]:
    """The challenges whose function a file defines (a file may answer several)."""
    return [c for c in load_all(course) if c.function in defined]
