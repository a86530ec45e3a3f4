"""Guards for the package's shape: the public names, and which way the data flows."""

import ast
import sys
from pathlib import Path

import pytest

import menace_course

PACKAGE = Path(menace_course.__file__).parent


def imports_of(module_path: Path) -> set[str]:
    tree = ast.parse(module_path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_public_names_are_sorted_and_all_resolve():
    assert menace_course.__all__ == sorted(menace_course.__all__)
    for name in menace_course.__all__:
        assert getattr(menace_course, name) is not None


def test_the_results_model_needs_only_the_standard_library():
    third_party = (
        {name.split(".")[0] for name in imports_of(PACKAGE / "models.py")}
        - set(sys.stdlib_module_names)
        - {"__future__"}
    )
    assert third_party == set()


@pytest.mark.parametrize(
    "module", ["sandbox/wire.py", "sandbox/harness.py", "lesson/noughts.py", "lesson/pixels.py"]
)
def test_files_copied_elsewhere_import_only_the_standard_library(module):
    names = {name.split(".")[0] for name in imports_of(PACKAGE / module)}
    assert names - set(sys.stdlib_module_names) - {"__future__", "wire"} == set()


def test_feedback_reads_reports_and_never_reaches_back_into_the_grader():
    names = imports_of(PACKAGE / "feedback.py")
    assert not {
        n
        for n in names
        if n.startswith(
            ("menace_course.sandbox", "menace_course.checking.pipeline", "menace_course.checking.runner")
        )
    }
