"""The files ``menace start stepN`` gives a student: a step program that runs on its own.

A step program in the course (``reference/steps/stepN.py``) imports the lesson's modules
from the package (``from menace_course.lesson.noughts import ...``). A student's copy must
run with plain ``python3``, so those modules are copied beside it and the imports rewritten
(``from noughts import ...``). ``menace validate`` reads the same files, to say which
challenges they already answer.
"""

from __future__ import annotations

import re
from pathlib import Path

from menace_course.errors import CourseError
from menace_course.lesson import noughts, pixels

#: The package's own modules a step program may import; each is copied along with it.
HELPERS = {"noughts": noughts, "pixels": pixels}
_IMPORT = re.compile(r"^from menace_course\.lesson\.(\w+) import", re.M)


def program_files(program: Path) -> dict[str, str]:
    """The step program at ``program`` as a student gets it, and the modules it imports, by name.

    Raises:
        CourseError: the program imports a module of the package that cannot be copied.
    """
    text = program.read_text(encoding="utf-8")
    files = {}
    for module in sorted(set(_IMPORT.findall(text))):
        if module not in HELPERS:
            raise CourseError(f"{program} imports menace_course.lesson.{module}, which can't be copied")
        files[f"{module}.py"] = Path(HELPERS[module].__file__ or "").read_text(encoding="utf-8")
    return {program.name: _IMPORT.sub(r"from \1 import", text), **files}
