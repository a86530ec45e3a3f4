"""Build a Gradescope autograder: a zip with ``setup.sh`` and ``run_autograder`` at its root.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once as root
while it builds the image, then runs ``run_autograder`` for every submission and reads
``/autograder/results/results.json`` (``docs/specs.md`` of gradescope/autograder_samples).
The zip holds::

    setup.sh                 apt-get: python3 (3.11 or newer) and bubblewrap; a venv; pip installs
    run_autograder           grades /autograder/submission with menace_course.autograders.gradescope
    requirements.txt         this package's dependencies and hypothesis, each pinned exactly
    constraints.txt          the exact versions of all they need (constraints/grading.txt)
    menace_course-<v>+gradescope-py3-none-any.whl
                             this package with ONE challenge inside: its text, examples,
                             hidden tests, reference and the feedback templates

The wheel holds hidden tests and a reference solution, so the zip is private to the
instructor, and ``setup.sh`` leaves both the installed course and ``/autograder/source``
readable by root only: student code, which runs as another user wherever the sandbox
can drop to one, cannot read them. Both scripts honour ``AUTOGRADER_ROOT`` so they can be run on a simulated
tree; ``setup.sh`` also honours ``MENACE_SKIP_APT=1`` and ``MENACE_VENV_OPTIONS``.
"""

from __future__ import annotations

import re
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from menace_course import catalog
from menace_course.atomic import atomic_binary_writer
from menace_course.bundle import build_wheel, copy_tree, dependencies
from menace_course.catalog import Challenge
from menace_course.course import Course
from menace_course.errors import UsageError
from menace_course.exports import counted
from menace_course.exports.gradescope_results import VISIBILITIES
from menace_course.kit import collect_suite, public_files
from menace_course.pins import autograder_requirements, constraints_path

#: ``reference("after_game")`` or ``reference_module("noughts")`` in a hidden test file.
_REFERENCE_CALL = re.compile(r"""reference(?:_module)?\(\s*["'](\w+)["']\s*\)""")
_ZIP_TIME = (2020, 2, 2, 0, 0, 0)

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder's image.
# It installs Python 3.11 or newer and bubblewrap, then menace-course (with the
# challenge {slug}) into a virtual environment at $ROOT/menace-venv.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
SOURCE="$ROOT/source"
VENV="$ROOT/menace-venv"

find_python() {{
  for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}}

if [ "${{MENACE_SKIP_APT:-0}}" != 1 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends python3 python3-pip python3-venv bubblewrap
  if ! find_python >/dev/null; then
    # Ubuntu 22.04 (Gradescope's default image) has Python 3.10; 3.11 is in its universe.
    apt-get install -y --no-install-recommends python3.11 python3.11-venv
  fi
fi

PYTHON="$(find_python)" || {{ echo "setup.sh: Python 3.11 or newer is needed" >&2; exit 1; }}
"$PYTHON" -m venv ${{MENACE_VENV_OPTIONS:-}} "$VENV"
"$VENV/bin/python" -m pip install --disable-pip-version-check -r "$SOURCE/requirements.txt"
"$VENV/bin/python" -m pip install --disable-pip-version-check --no-deps "$SOURCE/{wheel}"
# The course inside the package holds the hidden tests and the reference: only the grader
# (root) may read them; student code runs as nobody wherever the sandbox can drop to it.
FIND_COURSE='from menace_course.course import BUNDLED_COURSE; print(BUNDLED_COURSE)'
COURSE_DIR="$("$VENV/bin/python" -I -c "$FIND_COURSE")"
chmod -R go-rwx "$COURSE_DIR"
# The zip's own copy (the wheel in $SOURCE) holds them too: the same for it.
chmod -R go-rwx "$SOURCE"
"$VENV/bin/python" -I -m menace_course --version
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission. It always leaves results/results.json.
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{MENACE_PYTHON:-$ROOT/menace-venv/bin/python}}"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
rm -f "$RESULTS"
cd "$ROOT" || exit 0
"$PYTHON" -I -m menace_course.autograders.gradescope --root "$ROOT" --challenge {slug} \\
    --hidden-visibility {hidden} --sandbox {sandbox}
status=$?
if [ ! -s "$RESULTS" ]; then
  # Python itself could not start or was killed: still give Gradescope a result.
  message="The autograder could not run (exit code $status); the fault is in the grader,"
  message="$message not in your code. Please let your instructor know."
  printf '{{"score": 0, "output": "%s", "output_format": "text", "tests": []}}\\n' \\
    "$message" > "$RESULTS"
fi
exit 0
"""


@dataclass(frozen=True)
class Autograder:
    """What :func:`build_autograder` wrote, and what its tests are worth."""

    zip_path: Path
    wheel_name: str
    tests: int
    hidden_tests: int
    points: float


def references_used(path: Path) -> set[str]:
    """The reference modules a hidden test file loads (``reference("after_game")`` and the like)."""
    return set(_REFERENCE_CALL.findall(path.read_text(encoding="utf-8")))


def fill_private_course(course: Course, challenge: Challenge, target: Path) -> None:
    """Write everything grading ``challenge`` needs, and nothing of other challenges."""
    folder = target / "challenges" / challenge.slug
    folder.mkdir(parents=True)
    for path in public_files(challenge):
        (folder / path.name).write_bytes(path.read_bytes())
    copy_tree(course.templates_dir, target / "feedback_templates")
    hidden_folder = course.hidden_tests_dir / challenge.slug
    if hidden_folder.is_dir():
        copy_tree(hidden_folder, target / "hidden_tests" / challenge.slug)
    (target / "reference").mkdir()
    names = {challenge.slug}.union(*(references_used(p) for p in hidden_folder.glob("*.py")))
    for name in sorted(names):
        source = course.reference_dir / f"{name}.py"
        if source.is_file():
            (target / "reference" / source.name).write_bytes(source.read_bytes())


def _add(archive: zipfile.ZipFile, name: str, data: bytes, *, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
    mode = 0o755 if executable else 0o644
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def check_visibility(hidden: str, tests: list[tuple[float, bool]]) -> None:
    """Refuse Gradescope's ``hidden`` visibility for hidden tests that carry points.

    Gradescope documents ``hidden`` for tests that give no points: a hidden test is never
    shown to a student, not even after grades are published, and while any test is
    hidden the student sees no total. Points hidden that way make a score that no
    student can check or understand. ``after_published`` (the default) shows the hidden
    tests' names, hints and points once grades are published, and ``after_due_date``
    after the due date; before then students see only the examples.

    Raises:
        UsageError: ``hidden`` is ``hidden`` and some hidden test carries points.
    """
    if hidden != "hidden":
        return
    scored = [points for points, visible in tests if not visible and points > 0]
    if scored:
        total = sum(points for points, _ in tests)
        raise UsageError(
            f"--hidden-visibility hidden would hide {counted(len(scored), 'test')} worth {sum(scored):g} "
            f"of the {total:g} points for good: Gradescope never shows a hidden test, not even after grades "
            "are published, and shows no total while any test is hidden, so students could neither "
            "see nor check those points (Gradescope documents hidden for tests without points). "
            "Use after_published (the default: the hidden tests appear, names and hints only, when "
            "you publish grades) or after_due_date"
        )


def build_autograder(
    course: Course,
    slug: str,
    out: Path,
    *,
    hidden: str = "after_published",
    sandbox: str = "auto",
    force: bool = False,
) -> Autograder:
    """Write the autograder zip for one challenge of ``course`` to ``out``.

    Raises:
        UnknownChallenge: no challenge ``slug`` (exit 2, with suggestions).
        UsageError: ``out`` exists and ``force`` is False, a bad visibility or sandbox, or
            ``hidden`` visibility for hidden tests that carry points (:func:`check_visibility`).
        CourseError: the challenge's hidden tests cannot be loaded.
    """
    if hidden not in VISIBILITIES:
        raise UsageError(f"unknown visibility {hidden!r}; choose one of {', '.join(VISIBILITIES)}")
    if sandbox not in ("auto", "bwrap", "process"):
        raise UsageError(f"unknown sandbox {sandbox!r}; choose auto, bwrap or process")
    challenge = catalog.load_challenge(course, slug)
    if out.exists() and not force:
        raise UsageError(f"{out} already exists; pass --force to replace it")
    if out.is_dir():
        raise UsageError(f"{out} is a folder; give the path of the zip to write")
    suite = collect_suite(course, challenge)
    check_visibility(hidden, [(c.points, c.is_visible) for c in suite.cases])
    with tempfile.TemporaryDirectory(prefix="menace-gradescope-") as scratch:
        wheel = build_wheel(
            lambda target: fill_private_course(course, challenge, target),
            Path(scratch),
            label="gradescope",
            description=f"MENACE course autograder for {slug} (instructor only: holds hidden tests).",
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        with atomic_binary_writer(out) as handle, zipfile.ZipFile(handle, "w") as archive:
            _add(archive, "setup.sh", SETUP_SH.format(slug=slug, wheel=wheel.name).encode(), executable=True)
            script = RUN_AUTOGRADER.format(slug=slug, hidden=hidden, sandbox=sandbox)
            _add(archive, "run_autograder", script.encode(), executable=True)
            _add(archive, "requirements.txt", autograder_requirements(dependencies()).encode())
            _add(archive, "constraints.txt", constraints_path().read_bytes())
            _add(archive, wheel.name, wheel.read_bytes())
    return Autograder(
        zip_path=out,
        wheel_name=wheel.name,
        tests=len(suite.cases),
        hidden_tests=sum(not c.is_visible for c in suite.cases),
        points=sum(c.points for c in suite.cases),
    )
