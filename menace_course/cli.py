"""The ``menace`` command: a thin layer that parses arguments and prints.

Each subcommand lives in its own module under :mod:`menace_course.commands` and is
imported only when it is used, so ``menace check`` never pays for the plotting
library that ``menace grade`` needs. This module is the only place that turns a
:class:`~menace_course.errors.MenaceError` into a message and an exit code.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Sequence

import click

from menace_course import __version__, extras
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

#: The commands a student runs: they speak ``--lang``'s language, else the environment's
#: (:mod:`menace_course.language`). Every other command (an instructor's, an author's, the
#: service's) speaks English whatever the machine's ``LANG``, as its logs and pages do.
STUDENT_COMMANDS = frozenset({"check", "start", "show", "step", "list", "experiment", "warm"})

#: command name -> the extras it cannot run without (see :mod:`menace_course.extras`). A
#: command whose extra is missing is left out of ``--help`` (a line says what to install)
#: and answers, whatever its arguments, with that line and exit 2.
COMMAND_EXTRAS: dict[str, tuple[str, ...]] = {
    "grade": ("grader", "plots"),
    "validate": ("grader",),
    "serve": ("service",),
    "users": ("service",),
    "lti": ("service",),
    "worker": ("service",),
}


class LazyGroup(click.Group):
    """A click group that imports a subcommand's module only when that subcommand runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Name every command that can run here (its module and extras installed), in a stable order."""
        return [name for name in _known_commands() if not _missing_extras(name)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import and return the command, or None for an unknown name.

        A command whose extra is not installed is not imported: a stand-in answers for it
        with one line that says what to install (exit 2), ``--help`` included.
        """
        if cmd_name not in COMMANDS or not _module_exists(COMMANDS[cmd_name][0]):
            return None
        absent = _missing_extras(cmd_name)
        if absent:
            return _needs_extras(cmd_name, absent)
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
            known = _known_commands()
            import difflib  # only a mistyped command pays for it

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
        hidden: dict[tuple[str, ...], list[str]] = {}
        for name in _known_commands():
            absent = _missing_extras(name)
            if absent:
                hidden.setdefault(absent, []).append(name)
        if hidden:
            with formatter.section("Not installed here"):
                formatter.write_dl(
                    [(", ".join(names), f"install {_install_name(need)}") for need, names in hidden.items()]
                )


def _module_exists(module_name: str) -> bool:
    return importlib.util.find_spec(module_name) is not None


def _known_commands() -> list[str]:
    """Every command whose module is in this copy of the package."""
    return [name for name in COMMANDS if _module_exists(COMMANDS[name][0])]


def _missing_extras(name: str) -> tuple[str, ...]:
    """The extras command ``name`` needs that are not installed here."""
    return tuple(extra for extra in COMMAND_EXTRAS.get(name, ()) if extras.missing(extra) is not None)


def _install_name(absent: tuple[str, ...]) -> str:
    return f"menace-course[{','.join(absent)}]"


def _needs_extras(name: str, absent: tuple[str, ...]) -> click.Command:
    """A stand-in for command ``name``: it takes any arguments and says what to install."""

    def refuse() -> None:
        modules = tuple(extras.missing(extra) or extra for extra in absent)
        raise extras.MissingExtra(absent, f"menace {name}", modules)

    return click.Command(
        name,
        callback=refuse,
        help=f"{COMMANDS[name][2]} (Needs {_install_name(absent)}.)",
        add_help_option=False,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )


#: What the local part of an installed bundle's version (``0.1.0+kit``) says it is.
BUNDLES = {
    "kit": "a student kit: the public course; hidden checks run when your instructor grades",
    "gradescope": "a Gradescope autograder: one challenge, its hidden tests inside",
}


def version_text() -> str:
    """What ``menace --version`` prints: the installed version, and what kind of install it is.

    An installed kit's version is ``0.1.0+kit`` (its wheel's name says so too); the line
    says it is a kit, so a student's copy is never mistaken for the instructor's.
    """
    import importlib.metadata

    try:
        installed = importlib.metadata.version("menace-course")
    except importlib.metadata.PackageNotFoundError:
        installed = __version__
    # A checkout run without installing it (or with a stale install) reports its own version.
    version = installed if installed.partition("+")[0] == __version__ else __version__
    label = version.partition("+")[2]
    text = f"menace {version}"
    if label in BUNDLES:
        text += f" ({BUNDLES[label]})"
    return f"{text}\nPython {sys.version.split()[0]}"


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(version_text())
        ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-V",
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_show_version,
    help="Show the version (and whether this is a student kit) and exit.",
)
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
    args = list(argv) if argv is not None else None
    words = [arg for arg in (sys.argv[1:] if args is None else args) if not arg.startswith("-")]
    if not words or words[0] in STUDENT_COMMANDS:
        _run(args)
        return
    from menace_course import language

    speaking = language.use(language.ENGLISH)
    try:
        _run(args)
    finally:
        language.reset(speaking)  # run in-process (the tests), the caller keeps its language


def _run(args: list[str] | None) -> None:
    """Run the command line ``args`` (``sys.argv``'s when None) and end the process with its code."""
    try:
        result = cli.main(args=args, standalone_mode=False)
    except MenaceError as error:
        click.echo(f"menace: {error}", err=True)
        sys.exit(error.exit_code)
    except click.exceptions.Abort:
        from menace_course.language import gettext as _

        click.echo(_("menace: stopped."), err=True)
        sys.exit(130)
    except click.UsageError as error:
        from menace_course.commands import usage_errors

        usage_errors.show(error, sys.argv[1:] if args is None else args)  # in the student's language
        sys.exit(2)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except ModuleNotFoundError as error:
        # An optional part that a command imports late (a picture's matplotlib, say).
        module = (error.name or "").partition(".")[0]
        extra = extras.extra_of(module)
        if extra is None:
            raise
        words = [arg for arg in (sys.argv[1:] if args is None else args) if not arg.startswith("-")]
        command = " ".join(["menace", *words[:1]])
        click.echo(f"menace: {extras.MissingExtra((extra,), command, (module,))}", err=True)
        sys.exit(2)
    # Commands return their exit code (0 done, 1 the submission did not pass).
    sys.exit(result if isinstance(result, int) else 0)
