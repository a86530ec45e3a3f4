"""The student kit: this package with the public course inside, as one wheel to install.

A student runs ``pip install menace_course-0.1.0+kit-py3-none-any.whl`` and then
``menace start after_game`` and ``menace check after_game.py`` anywhere: the course finder
falls back to the copy inside the package. What the kit's course holds is decided here,
and only here::

    _course/
      challenges/<slug>/      README.md, challenge.toml, starter.* (as the author wrote them)
        hidden.json           the hidden tests' names, titles, kinds, hints and points
      feedback_templates/     all the wording, hints included
      reference/steps/        the lesson's Step 1-4 programs (lesson content, not answers)

Never in it: ``hidden_tests/`` (the test code and every input and expected value in it),
``reference/<slug>.py`` (the solutions), nor any other file of a challenge's folder: only
the files named above are copied, so an author's ``wrong/`` answers (each a reference
with one bug) or notes never ship by accident. ``menace check`` against a kit runs the
visible examples and lists the hidden tests as checks that run when the instructor grades.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from menace_course import catalog
from menace_course.bundle import build_wheel, copy_tree
from menace_course.catalog import Challenge
from menace_course.checking.suite import HIDDEN_MANIFEST, Suite, collect, manifest_entries
from menace_course.course import Course
from menace_course.errors import CourseError, UsageError
from menace_course.extras import MissingExtra

#: What a student is told to do with the kit (written next to the wheel).
INSTRUCTIONS = """\
MENACE course: the student kit
==============================

Install it once (Python 3.11 or newer). KIT below is the folder this file is in
(for example ~/Downloads/menace-kit): the lines work from any folder.

With pipx (recommended: the kit gets an environment of its own, and `menace` is on
your PATH; on Debian or Ubuntu: sudo apt install pipx, then pipx ensurepath):

    pipx install KIT/{wheel}

Or in a virtual environment of your own (works everywhere Python does, also where
the system's Python refuses "pip install" with "externally-managed-environment"):

    python3 -m venv ~/menace-kit-env
    ~/menace-kit-env/bin/python3 -m pip install KIT/{wheel}
    ~/menace-kit-env/bin/menace list

(then add ~/menace-kit-env/bin to your PATH, or type its full name each time). On
Windows: py -m venv %USERPROFILE%\\menace-kit-env, then
%USERPROFILE%\\menace-kit-env\\Scripts\\python -m pip install KIT\\{wheel}.

Then, in any folder:

    menace list                  the challenges
    menace show after_game       what a challenge asks for, and its rules
    menace start after_game      a starter file for a challenge
    menace check after_game.py   feedback on your function
    menace step 3                run the lesson's Step 3

`menace check` runs each challenge's examples here and names the hidden checks your
instructor runs when grading; their inputs and answers are not in this kit. What its
exit code says:

    0  every check passes, the hidden ones too (only where they can run)
    1  some check does not pass: the feedback says which, and what to try
    2  the file cannot be checked (unreadable, too large, not Python) or the
       challenge is unknown
    3  the examples pass, but the hidden checks did not run here: they run when
       your instructor grades

On Linux, your first check also starts a "warm checker" in the background, so that
later checks start faster; it stops by itself after 15 minutes without a check.
`menace warm stop` stops it now; MENACE_WARM=off turns it off.

Checking on your course's check service
---------------------------------------

If your course runs a check service, your instructor gives you its address and a
token. There the hidden checks run too (their inputs and answers stay on the
service) and you get the same feedback and exit codes. The token goes only in
the MENACE_TOKEN environment variable, never on the command line, where it would
stay in your shell's history. Set it by pasting it at a prompt that does not show
it (bash or zsh), then check:

    read -rs MENACE_TOKEN && export MENACE_TOKEN      (paste the token, press Enter)
    menace check after_game.py --server <address>

Set MENACE_SERVER to the address too, and --server can be left out. On Windows,
in PowerShell: $env:MENACE_TOKEN = Read-Host -MaskInput "token".
If the service cannot be reached or refuses the token, the check ends with exit
code 2 and says why.
"""


#: The files of ``challenges/<slug>/`` a kit copies (and ``starter.*``); nothing else.
PUBLIC_FILES = frozenset({"README.md", "challenge.toml"})


@dataclass(frozen=True)
class Kit:
    """What :func:`build_kit` wrote."""

    wheel: Path
    instructions: Path
    challenges: tuple[str, ...]


def collect_suite(course: Course, challenge: Challenge) -> Suite:
    """Collect a challenge's tests, turning a broken hidden test file into a :class:`CourseError`."""
    try:
        return collect(course, challenge)
    except MissingExtra:
        raise  # (hypothesis is not installed: the message says what to install)
    except Exception as error:  # an author's test file may raise anything while importing
        raise CourseError(
            f"the hidden tests of {challenge.slug} could not be loaded "
            f"({type(error).__name__}: {error}); run menace validate {challenge.slug}"
        ) from error


def public_files(challenge: Challenge) -> list[Path]:
    """The files of a challenge's folder that students may have: text, metadata, starters."""
    return sorted(
        path
        for path in challenge.folder.iterdir()
        if path.is_file() and (path.name in PUBLIC_FILES or path.stem == "starter")
    )


def fill_public_course(course: Course, target: Path) -> tuple[str, ...]:
    """Write the public part of ``course`` into ``target``; return the challenges' slugs.

    Each challenge gets a ``hidden.json`` manifest made from its collected suite, or keeps
    the one it has when the course itself is a kit (it has no hidden tests to collect).
    """
    slugs = tuple(catalog.list_slugs(course))
    if not slugs:
        raise CourseError(f"{course.challenges_dir} has no challenges to put in a kit")
    for slug in slugs:
        challenge = catalog.load_challenge(course, slug)
        folder = target / "challenges" / slug
        folder.mkdir(parents=True)
        for path in public_files(challenge):
            (folder / path.name).write_bytes(path.read_bytes())
        if course.has_hidden_tests:
            entries = manifest_entries(collect_suite(course, challenge))
            (folder / HIDDEN_MANIFEST).write_text(
                json.dumps(entries, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
            )
    copy_tree(course.templates_dir, target / "feedback_templates")
    steps = course.reference_dir / "steps"
    if steps.is_dir():
        copy_tree(steps, target / "reference" / "steps")
    return slugs


def build_kit(course: Course, out_dir: Path, *, force: bool = False) -> Kit:
    """Build the kit's wheel and its instructions into ``out_dir``.

    Raises:
        UsageError: ``out_dir`` already holds a kit and ``force`` is False, or is a file.
        CourseError: the course has no challenges.
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"{out_dir} is a file; give a folder for the kit")
    old = sorted(out_dir.glob("menace_course-*.whl")) if out_dir.is_dir() else []
    if old and not force:
        raise UsageError(
            f"{out_dir} already holds {old[0].name}; pass --force to replace it, or choose another folder"
        )
    for wheel in old:
        wheel.unlink()
    slugs: tuple[str, ...] = ()

    def fill(target: Path) -> None:
        nonlocal slugs
        slugs = fill_public_course(course, target)

    wheel = build_wheel(
        fill, out_dir, label="kit", description="MENACE course: the student kit (public course)."
    )
    instructions = out_dir / "README.txt"
    instructions.write_text(INSTRUCTIONS.format(wheel=wheel.name), encoding="utf-8")
    return Kit(wheel, instructions, slugs)
