"""``menace export <name>``: hand grades or an autograder to an LMS.

Each export's click command is registered here with one line in :data:`SUBCOMMANDS`;
the exports themselves (the files they write) are in :mod:`menace_course.exports`.
This module is imported only when ``menace export`` runs.
"""

from __future__ import annotations

import importlib

import click

#: subcommand -> "module:attribute" of its click command
SUBCOMMANDS: dict[str, str] = {
    "canvas": "menace_course.commands.export_class:canvas",
    "moodle": "menace_course.commands.export_class:moodle",
    "csv": "menace_course.commands.export_class:plain_csv",
    "gradescope": "menace_course.commands.export_lms:gradescope",
    "nbgrader": "menace_course.commands.export_lms:nbgrader",
}


@click.group()
def export() -> None:
    """Hand grades to Canvas, Moodle or a CSV; build Gradescope and nbgrader autograders.

    \b
    After menace grade SUBMISSIONS --challenge SLUG --out OUT:
      menace export canvas --results OUT --gradebook gradebook.csv --out import.csv
      menace export moodle --results OUT --out moodle.csv
      menace export csv --results OUT --out grades.csv
    For a challenge:
      menace export gradescope --challenge SLUG --out autograder.zip
      menace export nbgrader --challenge SLUG --out nbgrader-course
    """


for _name, _target in SUBCOMMANDS.items():
    _module, _attribute = _target.split(":")
    _command = getattr(importlib.import_module(_module), _attribute)
    assert isinstance(_command, click.Command)
    export.add_command(_command, _name)
