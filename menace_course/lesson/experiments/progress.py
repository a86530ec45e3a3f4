"""A progress bar for long experiments, shown on standard error only when it is a terminal.

Experiments report progress through a plain callback, so they stay pure and silent
when called from code or tests; only the command line passes a callback that draws.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: Called once for each unit of work done (a run, a game, a round).
Tick = Callable[[], None]


def _nothing() -> None:
    """The callback of a bar that is not shown."""


@contextmanager
def progress_bar(total: int, description: str) -> Iterator[Tick]:
    """Yield a callback that moves a bar of ``total`` steps one step forward.

    The bar goes to standard error, and only when that is a terminal, so that piped or
    captured output holds the experiment's results and nothing else. It disappears
    when the work is done.
    """
    if not sys.stderr.isatty():
        yield _nothing
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield lambda: bar.advance(task)
