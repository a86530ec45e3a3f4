"""``menace new SLUG``: a complete challenge that validates from the first minute.

The new challenge is a small working example (a function that doubles a number) with
every file a challenge needs, so that ``menace validate SLUG`` passes at once and the
author replaces one piece at a time, validating as they go::

    challenges/SLUG/challenge.toml      metadata and visible examples
    challenges/SLUG/README.md           the text students read
    challenges/SLUG/starter.py          what students start from (fails the tests)
    challenges/SLUG/wrong/README.md     how to declare which tests catch a wrong solution
    challenges/SLUG/wrong/adds_two.py   one known wrong solution
    hidden_tests/SLUG/test_SLUG.py      a hidden example test and a property test
    reference/SLUG.py                   the reference solution (self-contained)
    feedback_templates/hints/SLUG_rules.md.j2   the hint the tests name

The files are written from jinja2 templates in ``menace_course/authoring/templates/``.

Example:
    from menace_course.authoring.scaffold import scaffold
    written = scaffold(find_course(None), "bead_total")
    # [Path('challenges/bead_total/challenge.toml'), ...]
"""

from __future__ import annotations

import builtins
import importlib.util
import keyword
import sys
from pathlib import Path

import jinja2

from menace_course.catalog import SLUG_PATTERN, list_slugs
from menace_course.course import Course
from menace_course.errors import UsageError

#: template -> where it goes, relative to the course (``{slug}`` filled in)
FILES: dict[str, str] = {
    "challenge.toml.j2": "challenges/{slug}/challenge.toml",
    "README.md.j2": "challenges/{slug}/README.md",
    "starter.py.j2": "challenges/{slug}/starter.py",
    "wrong_README.md.j2": "challenges/{slug}/wrong/README.md",
    "wrong_example.py.j2": "challenges/{slug}/wrong/adds_two.py",
    "test_hidden.py.j2": "hidden_tests/{slug}/test_{slug}.py",
    "reference.py.j2": "reference/{slug}.py",
    "hint.md.j2": "feedback_templates/hints/{slug}_rules.md.j2",
}


def check_slug(course: Course, slug: str) -> None:
    """Refuse a slug that is malformed, a Python keyword or builtin, a module's name, or taken.

    The slug names the challenge's folder, the function students write and the
    reference's file, so it must be a plain Python name that hides nothing.

    Raises:
        UsageError: with the reason and what to do (exit code 2).
    """
    if not SLUG_PATTERN.match(slug):
        raise UsageError(
            f"{slug!r} cannot be a challenge's name: use 2 to 40 lowercase letters, digits "
            "and underscores, starting with a letter (e.g. bead_total)"
        )
    if keyword.iskeyword(slug) or keyword.issoftkeyword(slug):
        raise UsageError(f"{slug!r} is a Python keyword, so it cannot name a function; pick another")
    if hasattr(builtins, slug):
        raise UsageError(f"{slug!r} is one of Python's built-in names; a function called that would hide it")
    if slug in sys.stdlib_module_names or importlib.util.find_spec(slug) is not None:
        raise UsageError(
            f"{slug!r} is the name of a Python module; a student's file named after it "
            "would hide that module. Pick another name"
        )
    if slug in list_slugs(course):
        raise UsageError(f"a challenge named {slug!r} already exists in {course.challenges_dir}")
    taken = [rel for rel in _targets(slug) if (course.root / rel).exists()]
    if taken:
        raise UsageError(
            f"{slug!r} is taken: {', '.join(taken)} already exist(s); pick another name or remove them"
        )


def _targets(slug: str) -> list[str]:
    folders = [f"challenges/{slug}", f"hidden_tests/{slug}", f"reference/{slug}.py"]
    return [*folders, f"feedback_templates/hints/{slug}_rules.md.j2"]


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("menace_course.authoring", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # the output is Python, TOML and markdown, never HTML
    )


def scaffold(course: Course, slug: str) -> list[Path]:
    """Write a new challenge's files into ``course``; return them, relative to its root.

    Raises:
        UsageError: the slug is refused (see :func:`check_slug`).
    """
    check_slug(course, slug)
    env = _environment()
    values = {"slug": slug, "title": slug.replace("_", " ").capitalize()}
    written = []
    for template, target in FILES.items():
        relative = Path(target.format(slug=slug))
        path = course.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(env.get_template(template).render(**values), encoding="utf-8")
        written.append(relative)
    return written
