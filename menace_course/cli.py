"""The ``menace`` command: a thin layer that parses arguments and prints.

Each subcommand lives in its own module under :mod:`menace_course.commands` and is
imported only when it is used, so ``menace check`` never pays for the plotting
library that ``menace grade`` needs. This module is the only place that turns a
:class:`~menace_course.errors.MenaceError` into a message and an exit code.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import sys
from collections.abc import Sequence

import click

from menace_course import __version__
from menace_course.errors import MenaceError

#: command name -> (module, attribute, one-line help shown by ``menace --help``)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "check": ("menace_course.commands.check", "check", "Check your solution file and get feedback."),
    "start": ("menace_course.commands.lesson", "start", "Write a starter file or a step program here."),
    "step": ("menace_course.commands.lesson", "step", "Run one of the lesson's programs (Steps 1-4)."),
    "experiment": (
        "menace_course.commands.experiment",
        "experiment",
        "Run an experiment from the lesson's questions.",
    ),
    "grade": ("menace_course.commands.grade", "grade", "Grade a whole class's submissions."),
    "export": ("menace_course.commands.export", "export", "Hand grades to Gradescope, Canvas, ..."),
    "kit": ("menace_course.commands.kit", "kit", "Build the kit students install."),
    "new": ("menace_course.commands.authoring", "new", "Scaffold a new challenge (authors)."),
    "validate": (
        "menace_course.commands.authoring",
        "validate",
        "Prove a challenge's tests are good (authors).",
    ),
    "list": ("menace_course.commands.check", "list_challenges", "List the course's challenges."),
    "show": ("menace_course.commands.show", "show", "Show a challenge's text: what to write."),
    "serve": ("menace_course.commands.serve", "serve", "Run the check service (web page and API)."),
    "users": ("menace_course.commands.users", "users", "Manage the check service's users and tokens."),
    "lti": ("menace_course.commands.lti", "lti", "Connect the check service to Canvas or Moodle (LTI 1.3)."),
    "worker": ("menace_course.commands.worker", "worker", "Run checks for a service's queue (scale-out)."),
    "warm": ("menace_course.commands.warm", "warm", "See or stop the warm checker that speeds up checks."),
}


class LazyGroup(click.Group):
    """A click group that imports a subcommand's module only when that subcommand runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Name every command whose module exists, in a stable order."""
        return [name for name in COMMANDS if _module_exists(COMMANDS[name][0])]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import and return the command, or None for an unknown name."""
        if cmd_name not in COMMANDS or not _module_exists(COMMANDS[cmd_name][0]):
            return None
        module_name, attribute, _ = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Find the command named first in ``args``; a misspelt one gets the close names.

        ``menace chek`` answers "No such command 'chek'. Did you mean 'check'?", as
        ``menace export canvs`` does, and names every command when none is close.
        """
        name = args[0] if args else ""
        if args and not name.startswith("-") and self.get_command(ctx, name) is None:
            known = self.list_commands(ctx)
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
            if close:
                hint = f"Did you mean {' or '.join(repr(c) for c in close)}?"
            else:
                hint = f"The commands are: {', '.join(known)}."
            raise click.UsageError(f"No such command {name!r}. {hint}", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List commands with their short help, without importing their modules."""
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _module_exists(module_name: str) -> bool:
    return importlib.util.find_spec(module_name) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="menace")
def cli() -> None:
    """MENACE course: exercises for "Can Matchboxes Learn to Play?".

    \b
    Students:     menace show after_game      (what to write)
                  menace start after_game     (a starter file)
                  menace check after_game.py  (feedback on your function)
                  menace step 3               (run the lesson's Step 3)
    Instructors:  menace grade SUBMISSIONS --challenge after_game --out OUT
    Authors:      menace new SLUG, menace validate
    """


def main(argv: Sequence[str] | None = None) -> None:
    """Run the ``menace`` command; turn our errors into a message and an exit code.

    Commands return their exit code instead of exiting, so that they stay testable
    and this is the one place where the process ends.
    """
    try:
        result = cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except MenaceError as error:
        click.echo(f"menace: {error}", err=True)
        sys.exit(error.exit_code)
    except click.exceptions.Abort:
        click.echo("menace: stopped.", err=True)
        sys.exit(130)
    except click.ClickException as error:
        error.show()
        sys.exit(2 if isinstance(error, click.UsageError) else error.exit_code)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    # Commands return their exit code (0 done, 1 the submission did not pass).
    sys.exit(result if isinstance(result, int) else 0)
