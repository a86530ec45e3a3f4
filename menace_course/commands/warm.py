"""``menace warm status`` and ``menace warm stop``: the background process that makes checks fast.

See :mod:`menace_course.warm` for what the warm checker is and when it runs. A user may have
several: one per environment (a virtual environment, a clone run with ``python -m``, another
course's install). ``status`` names the environment each serves; ``stop`` stops only this
environment's unless it is given ``--all``.
"""

from __future__ import annotations

import os
import sys

import click

from menace_course.warm.client import ask, running

#: The folder this package is imported from: with ``sys.executable``, this environment.
_PACKAGE_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@click.group()
def warm() -> None:
    """See or stop the warm checker (it makes `menace check` start faster).

    \b
    The first `menace check` starts it in the background; it stops by itself after
    15 minutes without a check (MENACE_WARM_IDLE seconds). MENACE_WARM=off turns it off.
    """


def serves_this_environment(answer: dict[str, object]) -> bool:
    """True when a warm checker's status names this Python and this copy of the package."""
    return answer.get("python") == sys.executable and answer.get("package") == _PACKAGE_FOLDER


def _where(answer: dict[str, object]) -> str:
    if serves_this_environment(answer):
        return "this environment"
    return f"{answer.get('python', 'an unknown Python')}, the package in {answer.get('package', '?')}"


@warm.command()
def status() -> int:
    """Say which warm checkers are running, the environment each serves, and what it has done."""
    answers = [answer for answer in (ask(path, "status") for path in running()) if answer is not None]
    if not answers:
        click.echo("No warm checker is running: the next `menace check` starts one.")
        return 0
    for answer in answers:
        served = int(str(answer.get("served", 0)))
        minutes = float(str(answer.get("idle_seconds", 0))) / 60
        click.echo(
            f"A warm checker is running (pid {answer.get('pid')}) for {_where(answer)}: "
            f"{served} {'check' if served == 1 else 'checks'} served; "
            f"it stops after {minutes:g} minutes without a check."
        )
    return 0


@warm.command()
@click.option("--all", "every", is_flag=True, help="Stop the warm checkers of every environment of yours.")
def stop(every: bool) -> int:
    """Stop this environment's warm checker now (checks already running finish)."""
    stopped: list[dict[str, object]] = []
    others = 0
    for path in running():
        answer = ask(path, "status")
        if answer is None:
            continue
        if not every and not serves_this_environment(answer):
            others += 1
            continue
        if ask(path, "stop") is not None:
            stopped.append(answer)
    if not stopped:
        click.echo("No warm checker was running for this environment.")
    else:
        pids = ", ".join(str(answer.get("pid")) for answer in stopped)
        click.echo(f"Stopped the warm checker (pid {pids}).")
    if others:
        which = "warm checker" if others == 1 else "warm checkers"
        click.echo(
            f"{others} {which} of other environments left running ('menace warm stop --all' stops them)."
        )
    return 0
