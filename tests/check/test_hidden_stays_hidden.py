"""Hidden stays hidden (issue 19): nothing a submission controls comes back to a student from a hidden test.

For every challenge, hostile submissions try each channel a child has: an exception class
named after the arguments, an exception message, frames compiled with the student's own
file name and named (and numbered) after the inputs, sleeping in proportion to an input,
printing, returning the inputs, returning values that are huge or odd (an object whose
``repr`` raises), and a sign of tampering whose detail carries the inputs. What the
hidden tests sent is recorded in the parent, as the calls are made (the grader's proxy),
never written down here; the reference gives the expected values for those calls.

Then everything a student could read is searched: ``menace check --format json`` (and
every field of each hidden test's record is walked against the grader's vocabulary),
the text, markdown and HTML feedback, Gradescope's ``results.json``, the nbgrader cells'
texts, and the service's JSON API (with its HTML feedback). No hidden input, no expected
value and none of the submission's markers may appear, and a hidden test's record holds
only its name, title, hint, outcome, points, a message of the grader's, a problem code and
at most the name of a builtin exception.
"""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from menace_course import catalog
from menace_course.checking.compare import clone
from menace_course.checking.importing import import_file
from menace_course.checking.pipeline import check_submission, time_allowed
from menace_course.checking.proxy import SubmissionProxy
from menace_course.checking.runner import MESSAGES
from menace_course.checking.suite import Suite, load_suite
from menace_course.course import find_course
from menace_course.feedback import render
from menace_course.language import LOCALE_DIR
from menace_course.models import SubmissionReport
from menace_course.sandbox.launch import choose_kind
from tests.support import REPO

pytestmark = pytest.mark.slow

COURSE = find_course(REPO)
SLUGS = catalog.list_slugs(COURSE)
TEMPLATES = COURSE.templates_dir
#: What every hostile submission puts into the channel it tries: it must never come back.
MARKER = "LEAK"

#: Every hostile submission starts with these helpers; ``{fn}`` is the challenge's function.
PRELUDE = '''
import sys
import time


def _ints(value, found=None):
    """Every whole number in the arguments (and each letter's code), in order."""
    found = [] if found is None else found
    if isinstance(value, bool):
        found.append(int(value))
    elif isinstance(value, int):
        found.append(value)
    elif isinstance(value, str):
        found.extend(ord(c) for c in value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _ints(key, found)
            _ints(item, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _ints(item, found)
    return found


def _hex(args):
    return repr(args).encode("utf-8", "replace").hex()


def {fn}(*args):
    if repr(args) in EXAMPLES:  # the examples printed in the challenge: answered, so they show nothing
        return EXAMPLES[repr(args)]
    return _leak(args)
'''

#: One hostile submission for each channel: ``_leak(args)`` is called with every call's arguments.
CHANNELS: dict[str, str] = {
    "exception_class_named_after_the_arguments": """
def _leak(args):
    raise type("LEAK" + repr(args), (Exception,), {})("LEAK")
""",
    "a_builtin_name_with_the_arguments_as_message": """
def _leak(args):
    raise ValueError("LEAK" + repr(args))
""",
    "a_class_that_calls_itself_a_builtin": """
class KeyError(Exception):
    def __str__(self):
        return "LEAK" + repr(self.args)


def _leak(args):
    raise KeyError(*args)
""",
    "frames_named_and_numbered_after_the_inputs": """
def _leak(args, depth=None):
    numbers = _ints(args)
    depth = (sum(numbers) % 23) + 1 if depth is None else depth
    if depth > 1:
        return _leak(args, depth - 1)  # the frames' repeats count the inputs too
    name = ("LEAK_" + _hex(args))[:190]
    line = 1000 + (sum(numbers) % 5000)
    code = "\\n" * (line - 1) + "def " + name + "():\\n    raise ValueError()\\n"
    space = {}
    exec(compile(code, __file__, "exec"), space)
    space[name]()
""",
    "sleeping_in_proportion_to_an_input": """
def _leak(args):
    time.sleep(0.002 * (sum(_ints(args)) % 40))
    return None
""",
    "printing_the_inputs": """
def _leak(args):
    print("LEAK", repr(args))
    print(*args)
    raise RuntimeError("LEAK")
""",
    "returning_the_inputs": """
def _leak(args):
    return args[0] if len(args) == 1 else list(args)
""",
    "a_huge_answer": """
def _leak(args):
    return ["LEAK" + repr(args)] * 100_000
""",
    "an_odd_answer_whose_repr_raises": """
def _leak(args):
    def _raises(self):
        raise RuntimeError("LEAK" + repr(args))

    odd = type(("LEAK_" + _hex(args))[:150], (), {"__repr__": _raises, "__str__": _raises,
                                                 "__eq__": lambda self, other: True})
    return odd()
""",
    "a_sign_of_tampering_that_carries_the_inputs": """
def _leak(args):
    sys.audit("menace.refused", ("LEAK_" + _hex(args))[:150])
    return None
""",
}


def hostile(challenge: catalog.Challenge, channel: str) -> str:
    """The submission for ``channel``: right on the challenge's examples, hostile on every other call."""
    examples = {repr(tuple(e.args)): e.expected for e in challenge.examples}
    prelude = PRELUDE.replace("{fn}", challenge.function)
    return f"EXAMPLES = {examples!r}\n" + prelude + CHANNELS[channel]


# -- what the hidden tests sent, recorded in the parent ---------------------------------------


@dataclass
class Recorded:
    """The calls the grader made to the student's function, as it made them."""

    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> Recorded:
    """Every call a test makes through the proxy, recorded in the parent before it is sent."""
    found = Recorded()
    original = SubmissionProxy._call

    def recording(self: SubmissionProxy, function: str, args: tuple[Any, ...]) -> Any:
        found.calls.append((function, clone(args)))
        return original(self, function, args)

    monkeypatch.setattr(SubmissionProxy, "_call", recording)
    return found


def _public(suite: Suite) -> str:
    """What a student may read anyway: the challenge's files, the wording, every test's title."""
    folder = COURSE.root / "challenges" / suite.challenge.slug
    parts = [p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file()]
    parts += [p.read_text(errors="replace") for p in TEMPLATES.rglob("*") if p.is_file()]
    parts += [p.read_text(errors="replace") for p in LOCALE_DIR.rglob("*.po")]  # the wording, translated
    parts += [c.title for c in suite.cases]
    return "\n".join(parts)


def _pieces(value: Any) -> Iterator[str]:
    """The ways a value may be written: its repr, and its parts' (long enough to mean something)."""
    if isinstance(value, str):
        if len(value.strip()) >= 5:
            yield value
        if len(repr(value)) >= 10:
            yield repr(value)
        return
    if isinstance(value, list | tuple | dict | set | frozenset):
        yield repr(value)
        if isinstance(value, list | tuple):
            inner = repr(list(value))[1:-1]
            if len(inner) >= 10:
                yield inner
        items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
        for key, item in items:
            if key is not None:
                yield from _pieces(key)
            yield from _pieces(item)


def secrets(suite: Suite, calls: list[tuple[str, tuple[Any, ...]]]) -> set[str]:
    """The hidden inputs and expected values of ``calls``: every long enough piece that is not public."""
    examples = [tuple(e.args) for e in suite.challenge.examples]
    module = import_file(COURSE.reference_dir / f"{suite.challenge.slug}.py")
    found: set[str] = set()
    for function, args in calls:
        if tuple(args) in examples:
            continue  # a visible example: public
        found.update(_pieces(tuple(args)))
        try:
            expected = getattr(module, function)(*clone(args))
        except Exception:  # the reference refuses it: no expected value to hide
            continue
        found.update(_pieces(expected))
    public = _public(suite)
    return {s for s in found if len(s) >= 10 and s not in public and re.search(r"[^\s\[\](){},'\"0]", s)}


# -- the walk of a hidden test's record --------------------------------------------------------


def builtin_exception(name: Any) -> bool:
    """True for the exact name of a builtin exception class."""
    value = getattr(builtins, name, None) if isinstance(name, str) else None
    return isinstance(value, type) and issubclass(value, BaseException)


def grader_messages() -> set[str]:
    """Every message the grader itself makes for a test."""
    kinds = [n for n in dir(builtins) if builtin_exception(n)]
    return {"passed", "raised an exception", *MESSAGES.values(), *(f"raised {k}" for k in kinds)}


TEST_FIELDS = {
    "name",
    "title",
    "kind",
    "outcome",
    "message",
    "points",
    "max_points",
    "hint",
    "is_visible",
    "detail",
    "seconds",
}


def walk_hidden(record: dict[str, Any], suite: Suite) -> None:
    """Every field of a hidden test's record as a student sees it: the grader's vocabulary only."""
    case = next(c for c in suite.cases if c.name == record["name"])
    where = f"{suite.challenge.slug}: {record['name']}"
    assert set(record) == TEST_FIELDS, where
    assert record["title"] == case.title and record["kind"] == case.kind.value, where
    assert record["is_visible"] is False and record["max_points"] == case.points, where
    assert record["points"] in (0.0, case.points), where
    assert record["outcome"] in {"passed", "failed", "error", "timeout", "skipped", "grader_error"}, where
    assert record["hint"] is None or (TEMPLATES / "hints" / f"{record['hint']}.md.j2").is_file(), where
    assert record["seconds"] == 0, f"{where}: a hidden test's own time is the child's"
    assert record["message"] in grader_messages() or (
        record["outcome"] == "skipped" and record["detail"] is None
    ), f"{where}: {record['message']!r}"
    detail = record["detail"]
    if detail is None:
        return
    assert detail["problem"] in {p for p in MESSAGES}, where
    error_type = detail["error_type"]
    assert error_type is None or builtin_exception(error_type), f"{where}: error_type {error_type!r}"
    rest = {k: v for k, v in detail.items() if k not in ("problem", "error_type")}
    assert all(v in (None, [], ()) for v in rest.values()), f"{where}: {rest}"


def walk_report(data: dict[str, Any], suite: Suite) -> None:
    """The whole record a student sees: each hidden test walked, the total time rounded and bounded."""
    hidden = [t for t in data["tests"] if not t["is_visible"]]
    assert len(hidden) == sum(not c.is_visible for c in suite.cases)
    for record in hidden:
        walk_hidden(record, suite)
    seconds = data["seconds"]
    assert 0 <= seconds <= time_allowed(suite.challenge.limits)
    assert abs(seconds * 10 - round(seconds * 10)) < 1e-9, f"total seconds {seconds} is not rounded"


def assert_nothing_hidden(text: str, secret: set[str], what: str) -> None:
    """No marker of the submission's, no hidden input or expected value, no line number it chose."""
    assert MARKER not in text and MARKER.lower() not in text.lower(), f"{what}: {_around(text, MARKER)}"
    assert "4c45414b" not in text, f"{what}: the marker, in hex"  # "LEAK".encode().hex()
    for s in secret:
        assert s not in text, f"{what} shows a hidden value: {s!r} in {_around(text, s)}"
    chosen_line = re.search(r"\bline [1-6]\d{3}\b", text)
    assert chosen_line is None, f"{what}: {_around(text, chosen_line.group(0)) if chosen_line else ''}"


def _around(text: str, needle: str) -> str:
    at = text.lower().find(needle.lower())
    return text[max(0, at - 120) : at + 120] if at >= 0 else ""


# -- everything a student reads, made as each entry point makes it --------------------------------


def check_json(report: SubmissionReport, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What ``menace check --format json`` prints for ``report``."""
    from menace_course.commands.check import _show

    capsys.readouterr()
    _show([report], "json", COURSE, True)
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def student_texts(report: SubmissionReport, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """Every text a student may be given for ``report``, by name."""
    from menace_course.exports.gradescope_results import results_json

    texts = {f: render(report, TEMPLATES, f) for f in ("text", "markdown", "html")}  # type: ignore[arg-type]
    texts["text in zh_TW"] = render(report, TEMPLATES, "text", "zh_TW")  # the same view, in other words
    texts["html in zh_TW"] = render(report, TEMPLATES, "html", "zh_TW")
    texts["json"] = json.dumps(check_json(report, capsys), ensure_ascii=False)
    gradescope = results_json(report, TEMPLATES, hidden="visible", execution_time=report.seconds)
    texts["gradescope results.json"] = json.dumps(gradescope, ensure_ascii=False)
    texts.update(nbgrader_cells(report))
    return texts


def nbgrader_cells(report: SubmissionReport) -> dict[str, str]:
    """What the nbgrader notebook's cells show (in the kernel and after ``nbgrader autograde``)."""
    from menace_course.autograders.nbgrader import student_texts

    texts = student_texts(report, COURSE)
    return {
        "nbgrader checks cell": texts.summary,
        **{f"nbgrader cell {n}": t for n, t in texts.tests.items()},
    }


@dataclass
class Checked:
    suite: Suite
    report: SubmissionReport
    secret: set[str]


@pytest.fixture
def check(recorded: Recorded) -> Callable[[str, str], Checked]:
    """Check the hostile submission for (slug, channel); what it sent is recorded in the parent."""

    def run(slug: str, channel: str) -> Checked:
        suite = load_suite(COURSE, slug)
        source = hostile(suite.challenge, channel).encode()
        recorded.calls.clear()
        report = check_submission((f"{slug}.py", source), suite, choose_kind("auto"))
        return Checked(suite, report, secrets(suite, recorded.calls))

    return run


@pytest.mark.parametrize("channel", sorted(CHANNELS))
@pytest.mark.parametrize("slug", SLUGS)
def test_no_hidden_input_or_answer_reaches_what_a_student_reads(
    check: Callable[[str, str], Checked], capsys: pytest.CaptureFixture[str], slug: str, channel: str
) -> None:
    checked = check(slug, channel)
    assert checked.report.status.value == "checked", checked.report.load_problem
    assert checked.secret, "the hidden tests made no call this test could look for"
    walk_report(check_json(checked.report, capsys), checked.suite)
    for what, text in student_texts(checked.report, capsys).items():
        assert_nothing_hidden(text, checked.secret, f"{slug}, {channel}: {what}")


def test_the_instructor_keeps_what_the_hidden_tests_saw(check: Callable[[str, str], Checked]) -> None:
    # results.jsonl, the class report and the service's database keep the full record.
    checked = check("after_game", "exception_class_named_after_the_arguments")
    hidden = [t for t in checked.report.tests if not t.is_visible and t.detail is not None]
    assert hidden and all(t.detail.error_type.startswith(MARKER) for t in hidden if t.detail)
    assert MARKER in json.dumps(checked.report.to_dict())


def test_a_hidden_check_that_crashes_names_the_builtin_kind_its_hint_and_what_to_try(
    check: Callable[[str, str], Checked], capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 24: "stopped with an error", and nothing else, gave a student nothing to act on.
    suite = load_suite(COURSE, "after_game")
    source = "def after_game(beads, square, result):\n    return beads[square + 20]\n"
    report = check_submission(("after_game.py", source.encode()), suite, choose_kind("auto"))
    data = check_json(report, capsys)
    hidden = [t for t in data["tests"] if not t["is_visible"]]
    assert all(t["detail"]["error_type"] == "IndexError" for t in hidden if t["outcome"] == "error")
    assert all(t["message"] == "raised IndexError" for t in hidden if t["outcome"] == "error")
    with_hints = {c.name for c in suite.cases if not c.is_visible and c.hint}
    assert with_hints and all(t["hint"] for t in hidden if t["name"] in with_hints)
    text = render(report, TEMPLATES, "text")
    assert "after_game raised IndexError" in text
    assert "does not show its input" in text and "position past the end of a list" in text
    assert "examples from the challenge" in text


def test_a_name_that_is_not_a_builtin_is_not_shown(capsys: pytest.CaptureFixture[str]) -> None:
    suite = load_suite(COURSE, "after_game")
    source = hostile(suite.challenge, "exception_class_named_after_the_arguments")
    report = check_submission(("after_game.py", source.encode()), suite, choose_kind("auto"))
    hidden = [t for t in check_json(report, capsys)["tests"] if not t["is_visible"]]
    assert hidden and all(t["message"] == "raised an exception" for t in hidden)
    assert "after_game raised an exception" in render(report, TEMPLATES, "text")


# -- the service ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def service() -> Iterator[tuple[Any, str]]:
    """The check service over SQLite, with one student's token."""
    import tempfile

    from tests.service.support import add_user, make_app, stop_app

    with tempfile.TemporaryDirectory() as folder:
        app = make_app(f"sqlite:///{Path(folder) / 'service.sqlite3'}")
        try:
            _, token = add_user(app)
            yield app, token
        finally:
            stop_app(app)


SERVICE_CHANNELS = [
    "exception_class_named_after_the_arguments",
    "frames_named_and_numbered_after_the_inputs",
    "printing_the_inputs",
    "returning_the_inputs",
    "a_sign_of_tampering_that_carries_the_inputs",
]


@pytest.mark.parametrize("channel", SERVICE_CHANNELS)
@pytest.mark.parametrize("slug", SLUGS)
def test_the_service_api_shows_nothing_hidden(
    service: tuple[Any, str], check: Callable[[str, str], Checked], slug: str, channel: str
) -> None:
    app, token = service
    local = check(slug, channel)  # the same calls, recorded here: the tests depend only on the answers
    body = {"challenge": slug, "filename": f"{slug}.py", "source": hostile(local.suite.challenge, channel)}
    answer = app.test_client().post(
        "/api/v1/checks?wait=60&format=html", json=body, headers={"Authorization": f"Bearer {token}"}
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)[:300]
    data = answer.get_json()
    walk_report(data["report"], local.suite)
    assert_nothing_hidden(answer.get_data(as_text=True), local.secret, f"{slug}, {channel}: the API")
