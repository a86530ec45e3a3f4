"""``menace warm status`` and ``menace warm stop``: the background process that makes checks fast.

See :mod:`menace_course.warm` for what the warm checker is and when it runs.
"""

from __future__ import annotations

import click

from menace_course.warm.client import ask, running


@click.group()
def warm() -> None:
    """See or stop the warm checker (it makes `menace check` start faster).

    \b
    The first `menace check` starts it in the background; it stops by itself after
    15 minutes without a check (MENACE_WARM_IDLE seconds). MENACE_WARM=off turns it off.
    """


@warm.command()
def status() -> int:
    """Say whether a warm checker is running, and what it has done."""
    answers = [answer for answer in (ask(path, "status") for path in running()) if answer is not None]
    if not answers:
        click.echo("No warm checker is running: the next `menace check` starts one.")
        return 0
    for answer in answers:
        served = int(str(answer.get("served", 0)))
        minutes = float(str(answer.get("idle_seconds", 0))) / 60
        click.echo(
            f"A warm checker is running (pid {answer.get('pid')}): "
            f"{served} {'check' if served == 1 else 'checks'} served; "
            f"it stops after {minutes:g} minutes without a check."
        )
    return 0


@warm.command()
def stop() -> int:
    """Stop every warm checker of yours now (checks already running finish)."""
    stopped = [answer for answer in (ask(path, "stop") for path in running()) if answer is not None]
    if not stopped:
        click.echo("No warm checker was running.")
    else:
        pids = ", ".join(str(answer.get("pid")) for answer in stopped)
        click.echo(f"Stopped the warm checker (pid {pids}).")
    return 0
