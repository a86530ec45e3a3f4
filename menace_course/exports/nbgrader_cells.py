"""Notebook cells with nbgrader's metadata, as plain nbformat-4 JSON data.

nbgrader reads ``cell.metadata.nbgrader`` (``schema_version`` 3): ``grade`` and ``points``
for a cell that is scored, ``solution`` for the student's answer, ``locked`` for a cell
nbgrader restores from the source before grading, and a ``grade_id`` unique in the
notebook. ``generate_assignment`` adds checksums itself. No nbformat import is needed to
write them; nbgrader validates them when it reads the notebook.
"""

from __future__ import annotations

import re
from typing import Any

SCHEMA_VERSION = 3
_CELL_ID = re.compile(r"[^A-Za-z0-9_-]")


def _lines(source: str) -> list[str]:
    return source.splitlines(keepends=True)


def markdown_cell(source: str, *, cell_id: str) -> dict[str, Any]:
    """A markdown cell nbgrader leaves alone."""
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": _lines(source)}


def code_cell(
    source: str,
    *,
    grade_id: str,
    points: float | None = None,
    solution: bool = False,
    locked: bool = False,
) -> dict[str, Any]:
    """A code cell with nbgrader metadata: a test cell when ``points`` is given."""
    is_test = points is not None
    metadata: dict[str, Any] = {
        "grade": is_test,
        "grade_id": grade_id,
        "locked": locked or is_test,
        "schema_version": SCHEMA_VERSION,
        "solution": solution,
        "task": False,
    }
    if is_test:
        metadata["points"] = points
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": _CELL_ID.sub("-", grade_id)[:64],
        "metadata": {"nbgrader": metadata},
        "outputs": [],
        "source": _lines(source),
    }


def notebook(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """A Python 3 notebook (nbformat 4.5: cells carry ids)."""
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
