"""The files every student receives, and which challenges they already answer.

Students get each challenge's starter (``menace start SLUG``) and the lesson's step
programs with the modules they import (``menace start stepN``: ``stepN.py``,
``noughts.py``, ``pixels.py``). Some of them define another challenge's function, by the
course's design: the new_box starter carries a working ``name``, the play_game starter a
working ``new_box``. An instructor grading ``name`` must know that handing in the
new_box starter passes it; ``menace validate`` says so for every challenge.
"""

from __future__ import annotations

import ast

from menace_course import catalog
from menace_course.course import Course
from menace_course.errors import CourseError
from menace_course.lesson.program_files import program_files


def public_files(course: Course) -> dict[str, str]:
    """Every file students receive, by a label that says where it comes from, and its text."""
    files: dict[str, str] = {}
    for challenge in catalog.load_all(course):
        if challenge.starter.is_file():
            files[f"the {challenge.slug} starter (menace start {challenge.slug})"] = (
                challenge.starter.read_text(encoding="utf-8")
            )
    steps: dict[str, list[str]] = {}  # file name -> the steps that write it
    texts: dict[str, str] = {}
    for program in sorted((course.reference_dir / "steps").glob("step*.py")):
        try:
            written = program_files(program)
        except CourseError:
            continue  # menace start refuses it too, so no student has it
        for name, text in written.items():
            steps.setdefault(name, []).append(program.stem)
            texts[name] = text
    for name, text in texts.items():
        files[f"{name} (menace start {', '.join(steps[name])})"] = text
    return files


def defines(text: str, function: str) -> bool:
    """True when the file defines ``function`` at its top level (without running it)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function for n in tree.body
    )
