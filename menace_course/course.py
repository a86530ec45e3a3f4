"""Find the course: the folder that holds ``challenges/`` (and, for instructors,
``hidden_tests/`` and ``reference/``).

Like git finding its repository, the course is looked for from the working directory
upwards; ``--course DIR`` names it outright; failing both, the copy installed with the
package (the student kit: public parts only) is used, and failing that, the clone the
package itself is imported from (``pip install -e .``: the package lives in its clone).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from menace_course.errors import CourseError
from menace_course.language import gettext as _

#: Where an installed wheel or kit keeps its copy of the public course.
BUNDLED_COURSE = Path(__file__).resolve().parent / "_course"
#: The clone this package is imported from, when it is one (an editable install, or a clone run in place).
SOURCE_COURSE = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Course:
    """The folders of one course. Private folders may be absent (a student's kit)."""

    root: Path

    @property
    def challenges_dir(self) -> Path:
        """Public challenge folders, one per slug."""
        return self.root / "challenges"

    @property
    def hidden_tests_dir(self) -> Path:
        """Private hidden tests, one folder per slug (absent in a kit)."""
        return self.root / "hidden_tests"

    @property
    def reference_dir(self) -> Path:
        """Private reference solutions and the lesson's step programs."""
        return self.root / "reference"

    @property
    def templates_dir(self) -> Path:
        """Jinja2 templates: all wording a student reads."""
        return self.root / "feedback_templates"

    @property
    def has_hidden_tests(self) -> bool:
        """True for an instructor's course, False for a student's kit."""
        return self.hidden_tests_dir.is_dir()


def _is_course(folder: Path) -> bool:
    return (folder / "challenges").is_dir() and (folder / "feedback_templates").is_dir()


def find_course(explicit: Path | None = None, start: Path | None = None) -> Course:
    """Return the course named by ``explicit``, else the nearest one above ``start``.

    Raises:
        CourseError: ``explicit`` is not a course, or no course can be found at all.
    """
    if explicit is not None:
        folder = explicit.expanduser().resolve()
        if not _is_course(folder):
            raise CourseError(
                _("%(folder)s is not a course folder (it needs challenges/ and feedback_templates/)")
                % {"folder": explicit}
            )
        return Course(folder)
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if _is_course(folder):
            return Course(folder)
    for installed in (BUNDLED_COURSE, SOURCE_COURSE):
        if _is_course(installed):
            return Course(installed)
    raise CourseError(
        _(
            "no course found here or above, and none is installed; "
            "run inside the course folder or pass --course DIR"
        )
    )
