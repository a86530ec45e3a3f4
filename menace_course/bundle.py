"""Build a wheel of this package with a chosen copy of a course inside it.

The student kit and the Gradescope autograder are both this package plus a course in
``menace_course/_course/`` (where :func:`menace_course.course.find_course` looks last).
They differ only in what that course holds: the kit has the public parts, the autograder
has everything one challenge needs, hidden tests and references included.

The wheel is built from a temporary copy of the package, never from the working tree,
so nothing is added to or left behind in the project::

    tmp/project/
      pyproject.toml          written here: name, version + local label, dependencies, script
      menace_course/          copied from the running package (without any old _course/)
        _course/              filled by the caller's ``fill`` function

The build uses hatchling's own API when hatchling is importable (fast, offline), and
``pip wheel`` otherwise (which fetches hatchling into an isolated environment).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path

import menace_course
from menace_course import __version__
from menace_course.errors import MenaceError

#: The running package's folder, copied into every bundle.
PACKAGE_DIR = Path(menace_course.__file__).resolve().parent
#: The distribution's name on PyPI and in wheel file names.
DISTRIBUTION = "menace-course"
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "_course", ".mypy_cache")


class BuildError(MenaceError):
    """The wheel could not be built: the message has the builder's own last words."""

    exit_code = 1


def dependencies() -> list[str]:
    """The package's run-time requirements, from the source checkout or the installed metadata."""
    pyproject = PACKAGE_DIR.parent / "pyproject.toml"
    if pyproject.is_file():
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == DISTRIBUTION:
            return [str(d) for d in project.get("dependencies", [])]
    requires = importlib.metadata.requires(DISTRIBUTION) or []
    return [r for r in requires if "extra ==" not in r]


def _pyproject(version: str, description: str) -> str:
    # json.dumps writes strings TOML reads the same (basic strings share JSON's escapes).
    deps = ",\n    ".join(json.dumps(d) for d in dependencies())
    return (
        '[build-system]\nrequires = ["hatchling>=1.21"]\nbuild-backend = "hatchling.build"\n\n'
        f"[project]\nname = {json.dumps(DISTRIBUTION)}\nversion = {json.dumps(version)}\n"
        f"description = {json.dumps(description)}\n"
        'requires-python = ">=3.11"\n'
        f"dependencies = [\n    {deps},\n]\n\n"
        '[project.scripts]\nmenace = "menace_course.warm.client:main"\n\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["menace_course"]\n'
    )


def build_wheel(fill: Callable[[Path], None], out_dir: Path, *, label: str, description: str) -> Path:
    """Build ``menace_course-<version>+<label>-py3-none-any.whl`` into ``out_dir``.

    ``fill`` receives the empty ``menace_course/_course`` folder of the temporary copy and
    writes the course into it. ``label`` becomes the version's local part (``0.1.0+kit``),
    so a kit can never be mistaken for the instructor's own install.

    Raises:
        BuildError: the build backend failed.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="menace-bundle-") as scratch:
        project = Path(scratch) / "project"
        shutil.copytree(PACKAGE_DIR, project / "menace_course", ignore=_SKIP)
        course = project / "menace_course" / "_course"
        course.mkdir()
        fill(course)
        version = f"{__version__}+{label}"
        (project / "pyproject.toml").write_text(_pyproject(version, description), "utf-8")
        built = Path(scratch) / "dist"
        wheel = _build(project, built)
        target = out_dir / wheel.name
        shutil.copyfile(wheel, target)
        return target


def _build(project: Path, built: Path) -> Path:
    if importlib.util.find_spec("hatchling") is not None:
        from hatchling.builders.wheel import WheelBuilder

        try:
            paths = list(WheelBuilder(str(project)).build(directory=str(built)))
        except Exception as error:  # hatchling raises plain exceptions for bad projects
            raise BuildError(f"hatchling could not build the wheel: {error}") from error
        return Path(paths[0])
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(built)]
    done = subprocess.run([*command, str(project)], capture_output=True, text=True, check=False, timeout=600)
    wheels = sorted(built.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        last = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise BuildError(
            "pip could not build the wheel (install hatchling to build offline): " + " / ".join(last)
        )
    return wheels[0]


def copy_tree(source: Path, target: Path) -> None:
    """Copy a course folder, leaving out caches."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
