"""The click options of ``menace serve`` and ``menace worker``, made from :class:`ServiceConfig`.

Each setting of :mod:`menace_course.service.config` becomes one option, with the
setting's help, bounds and choices, its environment variable (``MENACE_...``) and, through
``--config FILE``, a key in a TOML file. click itself takes a value from the first of the
command line, the environment, ``ctx.default_map`` (which ``--config`` fills) and the
default, which is the precedence the settings promise. The defaults live in the
dataclass; an option's own default is ``None`` ("not given"), so :func:`given` keeps
only what was set somewhere and the dataclass supplies the rest.
"""

from __future__ import annotations

import functools
import os
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from menace_course.errors import UsageError
from menace_course.service.config import Setting, default_text, settings
from menace_course.service.config_file import ConfigFileError, read_file

F = TypeVar("F", bound=Callable[..., Any])


def _type(about: Setting, python_type: Any) -> click.ParamType[Any]:
    if about.choices:
        return click.Choice(list(about.choices))
    if python_type is int:
        return click.IntRange(
            min=None if about.minimum is None else int(about.minimum),
            max=None if about.maximum is None else int(about.maximum),
        )
    if python_type is float:
        return click.FloatRange(min=about.minimum, max=about.maximum)
    if python_type is Path:
        return click.Path(file_okay=False, path_type=Path)
    return click.STRING


def _metavar(about: Setting, python_type: Any) -> str | None:
    if about.metavar or about.choices:
        return about.metavar or None
    if python_type is float:
        return "SECONDS" if about.name.endswith("seconds") else "NUMBER"
    return "N" if python_type is int else "TEXT"


def _help(about: Setting, shown_default: str) -> str:
    return f"{about.help} [default: {shown_default}; env {about.env}]"


def _option(item: Any, about: Setting, python_type: Any) -> Callable[[F], F]:
    shown = default_text(item, about) if not about.secret else "none"
    if python_type is bool:
        return click.option(
            about.flag,
            item.name,
            cls=SettingOption,
            is_flag=True,
            default=None,
            envvar=about.env,
            help=_help(about, shown),
        )
    multiple = typing.get_origin(python_type) is tuple
    return click.option(
        about.flag,
        item.name,
        cls=SettingOption,
        type=_type(about, python_type),
        default=None,
        multiple=multiple,
        envvar=about.env,
        metavar=_metavar(about, python_type),
        show_envvar=False,
        help=_help(about, shown),
    )


class SettingOption(click.Option):
    """An option of a setting: a bad value from the environment or the config file is one plain line.

    click's own message names the option only; this one names where the value came from
    (``MENACE_PORT='abc': ...`` or ``FILE: port = 70000: ...``), as :class:`UsageError` (exit 2).
    """

    def process_value(self, ctx: click.Context, value: Any) -> Any:
        """click's conversion and checks, with the value's source in the message."""
        try:
            return super().process_value(ctx, value)
        except click.BadParameter as error:
            assert self.name is not None
            source = ctx.get_parameter_source(self.name)
            about = next(a for i, a, _ in settings() if i.name == self.name)
            if source is click.core.ParameterSource.ENVIRONMENT:
                problem = UsageError(f"{about.env}={os.environ.get(about.env, '')!r}: {error.message}")
            elif source is click.core.ParameterSource.DEFAULT_MAP:
                shown = list(value) if isinstance(value, tuple) else value
                where = ctx.meta.get(CONFIG_FILE)
                problem = UsageError(f"{where}: {about.name} = {shown!r}: {error.message}")
            else:
                raise
            _refuse_or_defer(ctx, problem, error)
            return None


#: Where a group's bad setting waits (``menace serve``'s, for ``menace serve export``).
DEFERRED = "menace.deferred_setting_error"


def _refuse_or_defer(ctx: click.Context, problem: UsageError, cause: Exception) -> None:
    """Refuse a bad setting from the environment or the config file now, or, for a group, later.

    A group's settings (``menace serve``'s) are read before click knows which subcommand
    runs; they belong to the group's own command, not to its subcommands (``menace serve
    export`` has no port), so they are refused when the group itself runs (:func:`_refusing_deferred`).
    """
    if isinstance(ctx.command, click.Group):
        ctx.meta.setdefault(DEFERRED, problem)
        return
    raise problem from cause


def _refusing_deferred(function: F) -> F:
    """``function``, first raising the bad setting a group put off, when no subcommand runs.

    Every command with settings gets this through :func:`settings_options`, so no group
    can forget it: a bad setting is refused by the command it belongs to, never skipped.
    """

    @functools.wraps(function)
    def refusing(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        problem = ctx.meta.get(DEFERRED)
        if problem is not None and ctx.invoked_subcommand is None:
            raise problem
        return function(*args, **kwargs)

    return typing.cast(F, refusing)


#: Where the config file's path is kept in the context (for messages).
CONFIG_FILE = "menace.config_file"


def _read_config(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """``--config FILE``: its settings become the defaults of this command's options."""
    if value is None:
        return None
    try:
        found = read_file(value)
    except ConfigFileError as error:
        _refuse_or_defer(ctx, UsageError(str(error)), error)
        return None
    assert ctx.command.name is not None
    mine = {item.name for item, _, _ in settings(ctx.command.name)}
    ctx.meta[CONFIG_FILE] = value
    ctx.default_map = {
        **(ctx.default_map or {}),
        **{k: list(v) if isinstance(v, tuple) else v for k, v in found.items() if k in mine},
    }
    return value


def settings_options(command: str) -> Callable[[F], F]:
    """Every setting of ``command`` as an option, and ``--config FILE`` (read first)."""

    def decorate(function: F) -> F:
        function = _refusing_deferred(function)
        for item, about, python_type in reversed(settings(command)):
            function = _option(item, about, python_type)(function)
        return click.option(
            "--config",
            "config_file",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            envvar="MENACE_CONFIG",
            is_eager=True,
            expose_value=True,
            callback=_read_config,
            metavar="FILE",
            help="A TOML file of settings (the keys of docs/deploy.md's table); options and "
            "MENACE_* variables override it. [env MENACE_CONFIG]",
        )(function)

    return decorate


def given(values: dict[str, Any], command: str) -> dict[str, Any]:
    """The settings of ``command`` that were given somewhere (not ``None``), by field name."""
    mine = {item.name for item, _, _ in settings(command)}
    found = {}
    for name, value in values.items():
        if name in mine and value is not None and value != ():
            found[name] = tuple(value) if isinstance(value, list | tuple) else value
    return found


def source_of(ctx: click.Context, name: str) -> str:
    """Where a setting came from, in words for a message (``--workers``, ``MENACE_WORKERS``, the file)."""
    about = next(a for i, a, _ in settings() if i.name == name)
    source = ctx.get_parameter_source(name)
    if source is click.core.ParameterSource.ENVIRONMENT:
        return about.env
    if source is click.core.ParameterSource.DEFAULT_MAP:
        return f"{about.name} in the config file"
    return about.flag
