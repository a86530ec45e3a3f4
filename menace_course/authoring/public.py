"""The files every student receives, and which challenges they already answer.

Students get each challenge's starter (``menace start SLUG``) and the lesson's step
programs with the modules they import (``menace start stepN``: ``stepN.py``,
``noughts.py``, ``pixels.py``). Some of them define another challenge's function, by the
course's design: the new_box starter carries the lesson's ``name``, the play_game starter
the lesson's ``new_box``. None may earn more than a third of a challenge: ``menace
validate`` fails a challenge that one does. And ``menace grade`` notes a submission whose
function is one of these files' (:func:`handed_out_match`), so the instructor can look.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

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


def function_shape(text: str, function: str) -> str | None:
    """The top-level ``function`` of a file as its syntax tree, without docstrings or comments.

    Two files whose function differs only in layout, comments or docstrings have the same
    shape. None when the file does not parse or does not define it.
    """
    tree = _tree(text)
    for node in tree.body if tree is not None else []:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function:
            return ast.dump(node, annotate_fields=False, include_attributes=False)
    return None


def _tree(text: str) -> ast.Module | None:
    """The file's syntax tree with every docstring taken out (None when it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return tree


@functools.cache
def _shapes(course_root: Path, function: str) -> tuple[tuple[str, str], ...]:
    """Each handed-out file that defines ``function``: its label and the function's shape."""
    found = []
    for label, text in public_files(Course(course_root)).items():
        shape = function_shape(text, function)
        if shape is not None:
            found.append((label, shape))
    return tuple(found)


def handed_out_match(course: Course, slug: str, text: str) -> str | None:
    """The files students receive whose ``function`` the submission's is, or None.

    Several files carry the same lesson's function (step1.py, noughts.py, starters): they
    are all named, the one the whole submission is a copy of first. The challenge's own
    starter is left out (a starter handed in unchanged fails anyway).

    Example:
        handed_out_match(course, "name", step1_text)
        # 'step1.py (menace start step1), noughts.py (...), the new_box starter (...), ...'
    """
    function = catalog.load_challenge(course, slug).function
    shape = function_shape(text, function)
    if shape is None:
        return None
    whole = _file_shape(text)
    texts = public_files(course)
    labels = [
        label
        for label, handed in _shapes(course.root, function)
        if handed == shape and not label.startswith(f"the {slug} starter ")
    ]
    labels.sort(key=lambda label: _file_shape(texts[label]) != whole)
    return ", ".join(labels) or None


def _file_shape(text: str) -> str | None:
    """The whole file's syntax tree, without layout, comments or docstrings."""
    tree = _tree(text)
    return None if tree is None else ast.dump(tree, annotate_fields=False, include_attributes=False)
