"""No points for nothing: what a submission that does nothing, or only copies the examples, scores.

Two kinds of file cost a student nothing to write, and must earn (almost) nothing:

* **do-nothing** files: the function gives back ``None``, or gives back its first
  argument as it came. They must score 0: a test that passes for them checks something
  every function has for free (it did not change its input, it gave back a list),
  and must also check the value it gave back.
* **examples-only** files: the function gives back the answers printed in the challenge
  (the examples in challenge.toml and every ``>>> call`` in its README) for those exact
  calls, and for anything else ``None``, its first argument, or one of the printed
  answers. They may score at most a third of the points: the rest must come from
  rules the examples do not give away.

Both are generated for every challenge, from its ``function``, ``params`` and examples,
and run through the same sandbox as a student's file, so a new challenge cannot
regress: ``menace validate`` fails, naming the files, their score and the tests they pass.

Example:
    attempts = free_attempts(challenge)
    attempts[0].label  # 'gives back None'
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from menace_course.catalog import Challenge, Example

#: A README's interactive example: ``>>> call`` and the answer on the lines after it.
_PROMPT = re.compile(r"^\s*>>> (?P<call>.+)$")
#: Most an examples-only file may score, as a share of the points.
EXAMPLES_ONLY_SHARE = 1 / 3


@dataclass(frozen=True)
class FreeAttempt:
    """A file that costs nothing to write, and what it may score at most."""

    label: str  #: what it does, e.g. "gives back None"
    kind: str  #: ``does_nothing`` or ``examples_only``
    source: str
    most: float  #: the largest share of the points it may earn (0 or a third)


def readme_examples(challenge: Challenge) -> list[Example]:
    """The ``>>> function(...)`` examples printed in the challenge's README, with their answers.

    A call whose arguments or answer are not plain literals is skipped (it cannot be
    copied into a file without running something).
    """
    try:
        lines = challenge.text.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    found = []
    for number, line in enumerate(lines):
        match = _PROMPT.match(line)
        if match is None:
            continue
        answer = []
        for after in lines[number + 1 :]:
            if not after.strip() or _PROMPT.match(after) or after.strip().startswith("```"):
                break
            answer.append(after.strip())
        example = _example(challenge.function, match["call"], " ".join(answer))
        if example is not None:
            found.append(example)
    return found


def _example(function: str, call: str, answer: str) -> Example | None:
    try:
        node = ast.parse(call.split("  #")[0].strip(), mode="eval").body
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function):
            return None
        args = tuple(ast.literal_eval(a) for a in node.args)
        return Example(args=args, expected=ast.literal_eval(answer)) if not node.keywords else None
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None


def printed_examples(challenge: Challenge) -> list[Example]:
    """Every example a student can read: challenge.toml's, then the README's, each once."""
    seen: list[Example] = []
    for example in [*challenge.examples, *readme_examples(challenge)]:
        if not any(repr(e.args) == repr(example.args) for e in seen):
            seen.append(example)
    return seen


def free_attempts(challenge: Challenge) -> list[FreeAttempt]:
    """The do-nothing and examples-only files for a challenge."""
    params = list(challenge.params)
    attempts = [
        FreeAttempt("gives back None", "does_nothing", _function(challenge, params, "return None"), 0.0)
    ]
    if not params:
        return attempts
    first = params[0]
    body = f"return {first}"
    attempts.append(
        FreeAttempt(f"gives back {first} as it came", "does_nothing", _function(challenge, params, body), 0.0)
    )
    examples = printed_examples(challenge)
    if not examples:
        return attempts
    defaults: list[tuple[str, str]] = [("None", "None"), (f"{first} as it came", first)]
    answers: list[Any] = []
    for example in examples:
        if not any(repr(a) == repr(example.expected) for a in answers):
            answers.append(example.expected)
    defaults += [(f"the printed answer {_short(a)}", f"copy.deepcopy({a!r})") for a in answers]
    table = "[\n" + "".join(f"    ({e.args!r}, {e.expected!r}),\n" for e in examples) + "]"
    for label, default in defaults:
        body = (
            "for args, answer in ANSWERS:\n"
            f"        if list(args) == [{', '.join(params)}]:\n"
            "            return copy.deepcopy(answer)\n"
            f"    return {default}"
        )
        source = "import copy\n\nANSWERS = " + table + "\n\n\n" + _function(challenge, params, body)
        attempts.append(
            FreeAttempt(
                f"gives back the printed answers, else {label}", "examples_only", source, EXAMPLES_ONLY_SHARE
            )
        )
    return attempts


def _function(challenge: Challenge, params: list[str], body: str) -> str:
    return f"def {challenge.function}({', '.join(params)}):\n    {body}\n"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class FreeResult:
    """What one free attempt scored."""

    label: str
    kind: str
    score: float
    max_score: float
    most: float  #: the largest share of the points it may earn
    passed_tests: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when it scored no more than it may."""
        return self.score <= self.most * self.max_score + 1e-9
