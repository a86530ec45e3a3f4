"""Every example in the package's docstrings (``>>>``) gives what it shows: docstrings that teach are true."""

from __future__ import annotations

import doctest
import importlib

import pytest

from tests.support import REPO

PACKAGE = REPO / "menace_course"
#: Every module of the package with an example in a docstring.
WITH_EXAMPLES = sorted(
    ".".join(path.relative_to(REPO).with_suffix("").parts)
    for path in PACKAGE.rglob("*.py")
    if ">>> " in path.read_text(encoding="utf-8")
)


def test_the_examples_are_found():
    assert "menace_course.wording" in WITH_EXAMPLES and len(WITH_EXAMPLES) >= 10


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_every_docstring_example_gives_what_it_shows(name):
    try:
        module = importlib.import_module(name)
    except ImportError as missing:  # an optional part (the service's, nbgrader's) not installed
        pytest.skip(f"{name} needs {missing.name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
