"""The words for each :class:`~menace_course.models.Problem`: one table, used by every place that words one.

A test's ``message`` in a report (``--format json``, the API, the class record), the
feedback in every format (``feedback_templates/words.j2`` calls :func:`sentence`), the
service's pages and the lesson page (which show the server's feedback) all take their
sentence from :data:`SENTENCES`. ``tests/core/test_vocabulary.py`` fails when a member has
no sentence, or a sentence for a problem is written anywhere else.

Each sentence is an English gettext message id (see :mod:`menace_course.language`): the
feedback translates it for the student's language, and a missing translation gives this
English text, never a raw id. ``%(fn)s`` is the function's name; a sentence that does not
start with it says what was not checked. :func:`message` is the sentence as a report keeps
it: without its subject, in English (a report is data; its reader words it).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from menace_course.models import ErrorKind, Problem


def N_(text: str) -> str:
    """Mark ``text`` as a message id for extraction (``pybabel extract``), and give it back as it is."""
    return text


#: One sentence for each problem a test or a file can have.
SENTENCES: dict[Problem, str] = {
    Problem.DIFFERENT: N_("%(fn)s returned a different value"),
    Problem.WRONG_TYPE: N_("%(fn)s returned the wrong kind of value"),
    Problem.CHANGED_INPUT: N_("%(fn)s changed the list it was given"),
    Problem.BROKEN_RULE: N_("%(fn)s broke a rule every answer must keep"),
    Problem.FLAKY: N_("%(fn)s gave different answers for the same input"),
    Problem.RAISED: N_("%(fn)s stopped with an error"),
    Problem.TIMEOUT: N_("%(fn)s did not finish in time"),
    Problem.CRASHED: N_("%(fn)s stopped Python itself"),
    Problem.TOO_LARGE: N_("%(fn)s gave back a value too large to check"),
    Problem.MEMORY: N_("%(fn)s used more memory than allowed"),
    Problem.RECURSION: N_("%(fn)s kept calling itself and never stopped"),
    Problem.MISSING: N_("%(fn)s is not defined"),
    Problem.SIGNATURE: N_("%(fn)s cannot take the arguments the challenge gives"),
    Problem.BUDGET: N_("not checked: the time allowed for the whole file ran out"),
    Problem.DEAD: N_(
        "not checked: %(fn)s took too long, ran out of memory, stopped Python "
        "or gave back too large a value earlier"
    ),
    Problem.SYNTAX: N_("%(fn)s could not be read: Python found a syntax error"),
    Problem.INPUT: N_("%(fn)s asked for input"),
    Problem.EXIT: N_("%(fn)s ended the program"),
    Problem.IMPORT: N_("%(fn)s imported a module that is not there"),
    Problem.NOTHING: N_("%(fn)s has no code yet"),
    Problem.GRADER: N_(
        "not checked: the grader failed on this check (not your mistake; your teacher can see why)"
    ),
}

#: A call that raised, when the grader knows the builtin kind (``%(kind)s``), and when it does not.
RAISED_KIND = N_("%(fn)s raised %(kind)s")
RAISED_UNKNOWN = N_("%(fn)s raised an exception")
#: A hidden test that did not pass, with no problem recorded.
DID_NOT_PASS = N_("%(fn)s did not pass")
#: What a function is called where a report's message needs a name and has none.
THE_FUNCTION = N_("the function")

#: What a test saw when a function answered the same arguments twice, differently (its note).
ANSWERED_DIFFERENTLY = N_("gave a different answer when called again with the same arguments")
#: What a test saw when its own code could not use an answer.
UNUSABLE_ANSWER = N_("returned an answer the test could not use")

#: How the note of a changed argument reads (``argument 2 was changed``).
ARGUMENT_CHANGED = N_("argument %(n)s was changed")

#: A function of another name the file defines, close to the one looked for (``%(name)s`` its repr).
DEFINED_INSTEAD = N_("%(name)s is defined instead")

#: Where two lists first differ (``first_difference``).
AT_POSITION = N_("position %(index)s")
LENGTH_DIFFERS = N_("length: %(got)s items instead of %(expected)s")

#: Why no test ran on a file (a report's ``load_problem.message``): ``%(file)s`` the file's name,
#: ``%(fn)s`` the challenge's function. The feedback words a stored message again in the
#: student's language by matching it against these (:func:`reworded`).
LOAD_TIMEOUT = N_("%(file)s did not finish loading in time (code outside functions runs when it loads)")
LOAD_CRASHED = N_("%(file)s stopped Python while it was loading")
LOAD_RAISED = N_("%(file)s stopped with an error while it was loading")
LOAD_NOTHING = N_("%(file)s has no code yet: nothing was handed in")
LOAD_MISSING = N_("No function named %(fn)s in %(file)s")
LOAD_UNREADABLE = N_("Python could not read %(file)s, so no functions were checked")
LOAD_TOO_MUCH = N_(
    "%(file)s defines too much for the checker to report: the list of its functions and their "
    "parameters came to more than %(cap)s, the most one report from the sandbox may hold"
)
LOAD_SIGNATURE_ONE = N_("%(fn)s must take %(n)s argument")
LOAD_SIGNATURE_MANY = N_("%(fn)s must take %(n)s arguments")
#: What a call gave back over the cap on one reply (a test's note, ``%(cap)s`` in words).
TOO_LARGE_NOTE = N_(
    "what it gave back (the value, and the arguments as it left them) came to more than %(cap)s, "
    "the most one reply from the sandbox may hold"
)
#: Why a file could not be read at all (a report's ``load_problem.message`` when no test ran).
UNREADABLE_OPEN = N_("the file could not be opened (%(why)s)")
UNREADABLE_READ = N_("the file could not be read (%(why)s)")
UNREADABLE_NOT_REGULAR = N_("it is not a regular file")
UNREADABLE_TOO_BIG = N_("the file is larger than %(kb)s KB")
UNREADABLE_BINARY = N_("the file is not text (it looks like a binary file)")
UNREADABLE_NOTEBOOK = N_("the notebook could not be read: %(error)s")
UNREADABLE_PYTHON = N_("Python could not read it: %(error)s")
#: What a report notes about how a file was read (``notices``).
READ_AS_UTF16 = N_("The file is saved as UTF-16; it was read as such.")
READ_AS_CP1252 = N_(
    "The file is not saved as UTF-8 (it looks like Windows-1252); it was read anyway. "
    "Save it as UTF-8 to be sure Python reads it the same way."
)
#: A test's note when the student's code ended Python with an exit code.
EXIT_CODE = N_("exit code %(code)s")
#: A visible test's note when the test's own code could not use what the function gave back.
COULD_NOT_USE = N_("the test could not use it: %(error)s")
#: What a notebook's notices say (``menace_course.checking.notebook``): ``%(where)s`` is
#: :data:`CELL_AT` or :data:`CELL_LINE_AT`, ``%(error)s`` a builtin kind with Python's message.
CELL_AT = N_("cell %(cell)s")
CELL_LINE_AT = N_("cell %(cell)s, line %(line)s")
CELL_STOPPED_UNKNOWN = N_(
    "%(where)s stopped with an error when the checker ran the cells from the top; "
    "the rest of that cell was left out, and the other cells were checked."
)
CELL_STOPPED = N_(
    "%(where)s stopped with %(error)s when the checker ran the cells from the top; "
    "the rest of that cell was left out, and the other cells were checked."
)
CELLS_MORE = N_("… and %(more)s more cells stopped with an error; each stopped there, and the next cell ran.")
RUN_ALL_ADVICE = N_(
    "Jupyter keeps what earlier runs defined, in whatever order the cells were run. "
    "Kernel → Restart & Run All runs every cell once, in order, as the checker does, and shows "
    "these errors where they happen."
)
#: IPython's lines the checker left out of a notebook (``%(magic)s``: ``%%timeit``, say).
IPYTHON_CELL_KEPT = N_(
    "cell %(cell)s starts with %(magic)s, which is IPython's, not Python: "
    "the checker ran the cell's code without that line."
)
IPYTHON_CELL_NAMED = N_(
    "cell %(cell)s is a %(magic)s cell, which IPython runs, not Python: the checker left it out."
)
IPYTHON_CELL_UNNAMED = N_(
    "cell %(cell)s is an IPython cell magic (%%%%), which IPython runs, not Python: the checker left it out."
)
IPYTHON_LINE = N_(
    "cell %(cell)s, line %(line)s: %(what)s is IPython's, not Python: the checker left that line out."
)
IPYTHON_MORE = N_("… and %(more)s more IPython lines, the same way.")
IPYTHON_MAGIC = N_("the IPython magic %(magic)s")
IPYTHON_MAGIC_UNNAMED = N_("an IPython magic (%%)")
IPYTHON_SHELL = N_("a shell command (!)")
IPYTHON_HELP = N_("a help request (?)")
IPYTHON_SHORTCUT = N_("an IPython shortcut")
#: Why a notebook could not be read (the ``%(error)s`` of :data:`UNREADABLE_NOTEBOOK`).
NOTEBOOK_SURROGATES = N_("a cell holds characters that are not valid text (lone surrogates)")
NOTEBOOK_TOO_DEEP = N_("it is nested too deeply to be a notebook")
NOTEBOOK_NOT_JSON = N_("it is not valid JSON")
NOTEBOOK_NOT_A_NOTEBOOK = N_("it is not a notebook (the file is JSON, but not a notebook's)")
NOTEBOOK_OLD = N_("it is in an old notebook format (nbformat 3); open it in Jupyter and save it again")
NOTEBOOK_NO_CELLS = N_("it has no list of cells")
NOTEBOOK_NOT_A_CELL = N_("cell %(cell)s is not a cell")
NOTEBOOK_NO_KIND = N_("cell %(cell)s has no cell_type")
NOTEBOOK_NO_SOURCE = N_("cell %(cell)s has no source")
NOTEBOOK_SOURCE_NOT_TEXT = N_("the source of cell %(cell)s is not text")
LOAD_MESSAGES = (
    LOAD_TOO_MUCH,
    LOAD_SIGNATURE_ONE,
    LOAD_SIGNATURE_MANY,
    LOAD_TIMEOUT,
    LOAD_CRASHED,
    LOAD_RAISED,
    LOAD_NOTHING,
    LOAD_MISSING,
    LOAD_UNREADABLE,
)

#: A passed test's message.
PASSED = N_("passed")


def subjectless(text: str, kind: str = "") -> str:
    """``text`` as a report keeps it: without its subject, any function inside named "the function"."""
    return text.removeprefix("%(fn)s ") % {"fn": THE_FUNCTION, "kind": kind}


def sentence_id(problem: Problem | str, kind: ErrorKind | str | None = None) -> str:
    """The message id for ``problem`` (a ``raised`` one names the builtin ``kind`` when there is one)."""
    if Problem(problem) is Problem.RAISED:
        return RAISED_KIND if kind else RAISED_UNKNOWN
    return SENTENCES[Problem(problem)]


def message(problem: Problem | str, kind: ErrorKind | str | None = None) -> str:
    """A test's ``message`` in a report: the English sentence without its subject.

    >>> message(Problem.RAISED, ErrorKind.INDEX), message("raised"), message("timeout")
    ('raised IndexError', 'raised an exception', 'did not finish in time')
    >>> message(Problem.DEAD).startswith("not checked: the function took too long")
    True
    """
    return subjectless(sentence_id(problem, kind), str(kind or ""))


#: Every report message a problem can have, as :func:`message` words them (for guards and tests).
MESSAGES: dict[str, str] = {p.value: message(p) for p in Problem}


def _pattern(text: str) -> re.Pattern[str]:
    parts = re.split(r"%\((\w+)\)s", text)
    # A literal ``%%`` in an id is one ``%`` in the text it made.
    regex = "".join(
        re.escape(p.replace("%%", "%")) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)
    )
    return re.compile(regex + r"\Z", re.DOTALL)


#: The stored messages :func:`reworded` recognises (their patterns are compiled on first use:
#: a check whose report has none of them never pays for compiling them).
_REWORDED = (
    *LOAD_MESSAGES,
    ARGUMENT_CHANGED,
    AT_POSITION,
    LENGTH_DIFFERS,
    DEFINED_INSTEAD,
    TOO_LARGE_NOTE,
    UNREADABLE_OPEN,
    UNREADABLE_READ,
    UNREADABLE_NOT_REGULAR,
    UNREADABLE_TOO_BIG,
    UNREADABLE_BINARY,
    UNREADABLE_NOTEBOOK,
    UNREADABLE_PYTHON,
    READ_AS_UTF16,
    READ_AS_CP1252,
    EXIT_CODE,
    COULD_NOT_USE,
    # The notebook's: a sentence without values before the one with them that would match it too.
    CELL_STOPPED_UNKNOWN,
    CELL_STOPPED,
    CELLS_MORE,
    RUN_ALL_ADVICE,
    IPYTHON_CELL_KEPT,
    IPYTHON_CELL_UNNAMED,
    IPYTHON_CELL_NAMED,
    IPYTHON_LINE,
    IPYTHON_MORE,
    IPYTHON_MAGIC_UNNAMED,
    IPYTHON_MAGIC,
    NOTEBOOK_NOT_A_CELL,
    NOTEBOOK_NO_KIND,
    NOTEBOOK_NO_SOURCE,
    NOTEBOOK_SOURCE_NOT_TEXT,
    CELL_LINE_AT,
    CELL_AT,
)


@functools.cache
def _patterns(among: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((text, _pattern(text)) for text in among)


def reworded(text: str, gettext: Callable[[str], str], among: tuple[str, ...] = _REWORDED) -> str:
    """A stored English message (one of :data:`LOAD_MESSAGES`, a note) in the language of ``gettext``.

    A value in it that is itself one of these messages (the cell a notebook's notice names,
    the notebook's reason it cannot be read) is worded again the same way. ``among`` is the
    table of English sentences to match (default: the stored messages; ``commands/usage_errors``
    has click's).

    >>> reworded("a.py stopped Python while it was loading", lambda m: m.replace("stopped", "STOPPED"))
    'a.py STOPPED Python while it was loading'
    """
    for message_id, pattern in _patterns(among):
        found = pattern.match(text)
        if found:
            values = {name: reworded(value, gettext, among) for name, value in found.groupdict().items()}
            try:
                return gettext(message_id) % values
            except (KeyError, ValueError, TypeError):  # a translation that names other values
                return text
    return gettext(text)
