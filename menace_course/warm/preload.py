"""What the warm checker loads between checks, so that its next copy need not.

A copy forked for a check starts with what the warm checker had in memory at the fork.
Before this module, that was imports only, so every copy collected its challenge's
tests (importing the hidden test modules and the reference, reading the stored
examples), read the challenge's plans and compiled its feedback templates: about a
quarter of a warm check's time, done again for every check.

Now each copy ends by telling the warm checker which suites it used (:func:`note`: the
course folder and the slug of each, one line on a pipe), and the warm checker, once no
check is running, loads those same suites into its own memory (:func:`preload`), under
the environment of the client whose check it was. The next copy inherits them: the
process's :data:`~menace_course.checking.suite.SUITES` gives a kept suite only while
none of its files changed (it compares their content), so an edited hidden test is
collected afresh by the copy, as it would be in a process of its own.

What this changes, and what it does not:

* The warm checker now runs course code (a challenge's hidden test modules and its
  reference, at import): the same trusted files a copy imports, and the same a service
  grader keeps loaded. Never a submission: student code runs only in a copy's sandbox,
  and nothing a copy sends back is more than a folder and a slug, read strictly.
* One check still cannot reach the next: every copy starts from the warm checker's
  memory, which no check has run in. What a test changes in its module (a cache of
  reference answers) changes the copy's memory only.
* A course whose tests fail to load, or take longer than :data:`PRELOAD_SECONDS`, is
  simply not preloaded: the copy collects it itself and reports what is wrong, as before.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from menace_course.course import Course

#: ``MENACE_PRELOAD`` values with which a copy uses nothing its warm checker loaded, and says
#: nothing of what it used (to compare, or to rule preloading out when something looks wrong).
OFF = frozenset({"0", "off", "no", "false"})
#: The most suites a note names (the line must fit one atomic pipe write).
MOST_SUITES = 16
#: A note longer than this is not sent: a pipe write of at most PIPE_BUF bytes is atomic.
NOTE_BYTES = 4096
#: How long loading one suite may take in the warm checker before it gives up on it.
PRELOAD_SECONDS = 30.0


def wanted() -> bool:
    """False when this process's environment turns preloading off (``MENACE_PRELOAD=off``)."""
    return os.environ.get("MENACE_PRELOAD", "").lower() not in OFF


def forget() -> None:
    """Drop, in this copy, everything its warm checker loaded: it collects its suite itself."""
    from menace_course.checking import plan
    from menace_course.checking.importing import MODULE_PREFIX
    from menace_course.checking.suite import SUITES
    from menace_course.feedback import environment

    SUITES.forget()
    plan.forget()
    environment.cache_clear()
    for name in [name for name in sys.modules if name.startswith(MODULE_PREFIX)]:
        del sys.modules[name]  # the course's test modules and references, imported again


def kept() -> list[tuple[Path, str]]:
    """The course folder and slug of each suite this process keeps."""
    from menace_course.checking.suite import SUITES

    return SUITES.collected()


def note() -> bytes:
    """The line a copy sends at its end: its pid and the suites it keeps (empty: none, or off)."""
    if not wanted():
        return b""
    suites = [[str(root), slug] for root, slug in kept()][-MOST_SUITES:]
    if not suites:
        return b""
    line = json.dumps({"pid": os.getpid(), "suites": suites}).encode() + b"\n"
    return line if len(line) <= NOTE_BYTES else b""


def read_notes(data: bytes) -> list[tuple[int, list[tuple[Path, str]]]]:
    """Each note in ``data`` (whole lines only): the copy's pid and the suites it names.

    Anything that is not a note as :func:`note` writes it is left out.
    """
    found = []
    for line in data.split(b"\n"):
        try:
            fields = json.loads(line)
            pid, entries = fields["pid"], fields["suites"]
        except (ValueError, TypeError, KeyError):
            continue
        if type(pid) is not int or not isinstance(entries, list):
            continue
        suites = [
            (Path(entry[0]), entry[1])
            for entry in entries
            if isinstance(entry, list)
            and len(entry) == 2
            and all(isinstance(part, str) for part in entry)
            and os.path.isabs(entry[0])
        ]
        found.append((pid, suites))
    return found


def preload(suites: list[tuple[Path, str]], environment: dict[str, str]) -> int:
    """Load ``suites`` into this process, as a check run with ``environment`` would; how many loaded.

    Each suite's tests (:data:`~menace_course.checking.suite.SUITES`), its plans, and the
    text feedback's templates of its course. A suite that cannot be loaded is left out.
    """
    from menace_course.checking.plan import plans_for
    from menace_course.checking.suite import SUITES
    from menace_course.course import Course

    loaded = 0
    with _environment(environment):
        for root, slug in suites:
            course = Course(root)
            try:
                with _at_most(PRELOAD_SECONDS):
                    plans_for(SUITES.get(course, slug))
                    _templates(course)
            except (Exception, SystemExit, _TooLong):  # the copy collects it and says what is wrong
                continue
            loaded += 1
    return loaded


def _templates(course: Course) -> None:
    """Compile the text report's template and the templates it imports, for this language."""
    from jinja2 import meta

    from menace_course import language
    from menace_course.feedback import TEMPLATE_FOR, environment

    env = environment(course.templates_dir, "text", language.current())
    name = TEMPLATE_FOR["text"]
    env.get_template(name)
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, name)
    for other in meta.find_referenced_templates(env.parse(source)):
        if other is not None:
            env.get_template(other)


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """This process's environment is ``values`` inside, and its own again after."""
    own = dict(os.environ)
    os.environ.clear()
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(own)


class _TooLong(BaseException):
    """Loading a suite took longer than :data:`PRELOAD_SECONDS`.

    Not an ``Exception``: the grader reads any exception a test module raises at import as
    a reason to import it again another way, and this one must stop the loading instead.
    """


@contextlib.contextmanager
def _at_most(seconds: float) -> Iterator[None]:
    """Raise :class:`_TooLong` inside if it has not finished after ``seconds`` (SIGALRM)."""

    def too_long(*_: object) -> None:
        raise _TooLong

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
