"""A usage error of a student's command (a missing file, an unknown option) in the student's language.

click words these itself, in English: its sentences come from a gettext domain of its own,
which no catalog of this package fills. :func:`show` prints the lines click's
``UsageError.show()`` prints, each one looked up in this package's catalog: click's English
is matched against :data:`CLICK_SENTENCES` (the way :func:`~menace_course.wording.reworded`
words a stored message), and the values in it (the option's name, what was typed) are kept.
A sentence of click's that is not in the table is shown as click wrote it: in English, and
never as a message id. In English the lines are click's own, byte for byte.
"""

from __future__ import annotations

import io

import click

from menace_course import language
from menace_course.commands.options import CHOSEN_LANGUAGE
from menace_course.wording import N_, reworded

#: click's sentences a student meets, as click words them (its ``{name!r}`` is ``%(name)s``
#: here, quotes and all). A longer sentence comes before a shorter one it starts with.
CLICK_SENTENCES = (
    N_("Usage: %(usage)s"),
    N_("Try '%(command)s' for help."),
    N_("Error: %(message)s"),
    N_("Missing argument %(name)s."),
    N_("Missing option %(name)s."),
    N_("No such option %(name)s. Did you mean %(possibility)s?"),
    N_("No such option %(name)s. (Did you mean one of: %(possibilities)s?)"),
    N_("No such option %(name)s."),
    N_("Option %(name)s requires an argument."),
    N_("Got unexpected extra argument (%(args)s)"),
    N_("Got unexpected extra arguments (%(args)s)"),
    N_("Invalid value for %(name)s: %(problem)s"),
    N_("%(value)s is not one of %(choices)s."),
    N_("%(value)s is not a valid integer."),
    N_("%(value)s is not in the range %(range)s."),
)


def show(error: click.UsageError, argv: list[str]) -> None:
    """Print ``error`` as click would, in the language the command speaks.

    That is ``--lang``'s, also when click stopped before it read it (``--bogus --lang zh_TW``:
    then it is found in ``argv``), else the environment's.
    """
    chosen = error.ctx.meta.get(CHOSEN_LANGUAGE) if error.ctx is not None else None
    speaking = chosen or _lang_in(argv) or language.current()
    if speaking == language.ENGLISH:
        error.show()
        return
    printed = io.StringIO()
    error.show(file=printed)

    def translated(message: str) -> str:
        return language.gettext(message, speaking)

    lines = printed.getvalue().split("\n")
    words = [reworded(line, translated, CLICK_SENTENCES) if line else line for line in lines]
    click.echo("\n".join(words), err=True, nl=False)


def _lang_in(argv: list[str]) -> str | None:
    """The catalog ``--lang LANG`` (or ``--lang=LANG``) in ``argv`` names, if any."""
    for index, arg in enumerate(argv):
        if arg == "--lang" and index + 1 < len(argv):
            return language.known(argv[index + 1])
        if arg.startswith("--lang="):
            return language.known(arg.partition("=")[2])
    return None
