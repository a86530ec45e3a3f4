"""The grading environments' exact versions (``constraints/grading.txt``), read where they ship.

Every place that grades (the Gradescope autograder, the check service, CI) installs the
same versions of everything the grader imports, hypothesis above all: it decides which
inputs a property test tries, so another version could give another grade. The file is
written by ``constraints/regenerate.py``; an installed wheel has it inside the package
(``[tool.hatch.build.targets.wheel.force-include]``), a checkout in ``constraints/``.
"""

from __future__ import annotations

import re
from pathlib import Path

from menace_course.errors import CourseError

_PACKAGE = Path(__file__).resolve().parent
#: Where the file is: inside an installed wheel, else in a checkout (and an editable install).
PLACES = (_PACKAGE / "constraints" / "grading.txt", _PACKAGE.parent / "constraints" / "grading.txt")
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)\s*$")


def constraints_path() -> Path:
    """The grading constraints file of this copy of the package.

    Raises:
        CourseError: neither place has it (a damaged install).
    """
    for path in PLACES:
        if path.is_file():
            return path
    raise CourseError(f"the grading constraints are missing ({PLACES[1]}); reinstall menace-course")


def canonical(name: str) -> str:
    """A distribution's name as pip compares it (PEP 503): ``PyJWT`` and ``pyjwt`` are one."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: Path | None = None) -> dict[str, str]:
    """The file's pins: canonical name -> exact version (comments and blank lines skipped)."""
    text = (path or constraints_path()).read_text(encoding="utf-8")
    found = {}
    for line in text.splitlines():
        match = _PIN.match(line.split("#", 1)[0].strip())
        if match:
            found[canonical(match.group(1))] = match.group(2)
    return found


def pinned(requirement: str, versions: dict[str, str]) -> str:
    """``hypothesis>=6.100,<7`` as ``hypothesis==6.170.17`` (unchanged if the file has no pin)."""
    name = re.split(r"[\s\[<>=!~;]", requirement.strip(), maxsplit=1)[0]
    version = versions.get(canonical(name))
    return f"{name}=={version}" if version is not None else requirement


def extra_requirements(extra: str) -> list[str]:
    """The requirements an extra adds, from the source checkout or the installed metadata."""
    import importlib.metadata
    import tomllib

    pyproject = _PACKAGE.parent / "pyproject.toml"
    if pyproject.is_file():
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == "menace-course":
            return [str(r) for r in project.get("optional-dependencies", {}).get(extra, [])]
    marker = re.compile(rf"""extra\s*==\s*["']{re.escape(extra)}["']""")
    requires = importlib.metadata.requires("menace-course") or []
    return [r.split(";", 1)[0].strip() for r in requires if ";" in r and marker.search(r.split(";", 1)[1])]


def autograder_requirements(base: list[str]) -> str:
    """A ``requirements.txt`` for an autograder: ``base`` and the grader extra, each pinned exactly.

    The first line, ``-c constraints.txt``, pins what they depend on in turn: the file the
    autograder's zip carries beside it (pip reads it relative to requirements.txt).
    """
    versions = pins()
    lines = [pinned(r, versions) for r in [*base, *extra_requirements("grader")]]
    head = "# Exact versions (constraints/grading.txt of menace-course): the same grades everywhere.\n"
    return head + "-c constraints.txt\n" + "".join(f"{line}\n" for line in lines)
