"""Replay a property test's generated examples instead of running hypothesis for every file.

Grading is derandomized, so hypothesis would generate the same examples for every
submission that passes them. Generating them is most of a property test's cost, so they
are generated once (per suite version, kept in a cache folder as tagged JSON) and then
simply replayed: the test's own body runs, in the grader, on each stored example (the
file is sealed with the cache's key, so no sandbox can change what is replayed). When
one fails and the test is visible, hypothesis runs for real to shrink the failure to the
smallest example a student can read; a hidden test shows no inputs, so it needs no
shrinking. The verdict is the same either way; only the time differs.

Replaying needs the test's body, not hypothesis: when every property test of a module has
its examples stored, the module is imported with a stand-in for hypothesis
(:mod:`~menace_course.checking.standin`), and hypothesis is imported only if a failure must
be shrunk or a test's body asks for more than the stand-in answers.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from menace_course.atomic import write_atomic
from menace_course.cache import seal, trusted_folder, unseal
from menace_course.checking.compare import clone
from menace_course.checking.standin import NeedsHypothesis, Unsatisfied
from menace_course.sandbox import wire

Examples = list[dict[str, Any]]


def can_replay(test: Any) -> bool:
    """True for a hypothesis test whose strategies are all given by keyword."""
    inner = getattr(test, "hypothesis", None)
    return bool(getattr(inner, "_given_kwargs", None)) and hasattr(inner, "inner_test")


def generate(test: Any) -> Examples:
    """The examples hypothesis gives this test under the grading profile: explicit ones first."""
    from hypothesis import Phase, given, settings

    strategies = test.hypothesis._given_kwargs
    explicit = [dict(e.kwargs) for e in getattr(test, "hypothesis_explicit_examples", [])]
    collected: Examples = []

    def record(**kwargs: Any) -> None:
        collected.append(copy.deepcopy(kwargs))

    base = test._hypothesis_internal_use_settings
    recorder = settings(base, database=None, derandomize=True, deadline=None, phases=[Phase.generate])(
        given(**strategies)(record)
    )
    recorder()
    return explicit + collected


class ExampleStore:
    """Generated examples for one suite version, read from and written to one sealed JSON file.

    The file carries an HMAC under the cache's secret key (:func:`menace_course.cache.seal`),
    checked on every read: a file anyone else wrote or changed is ignored and made again,
    so no sandbox can poison the examples that decide a grade.
    """

    def __init__(self, suite_hash: str, folder: Path | None = None) -> None:
        """Open (lazily) the store for this suite version (no store where the cache is not trusted)."""
        folder = folder or trusted_folder("examples")
        name = f"{suite_hash}-h{hypothesis_version()}.json"
        self.path = folder / name if folder is not None else None
        self._data: dict[str, Any] | None = None
        self._dirty = False

    def _load(self) -> dict[str, Any]:
        if self._data is None:
            self._data = {}
            try:
                data = unseal(self.path.read_bytes()) if self.path is not None else None
                loaded = json.loads(data) if data is not None else {}
                self._data = loaded if type(loaded) is dict else {}
            except (OSError, ValueError):
                pass
        return self._data

    def stored(self, name: str) -> Examples | None:
        """The stored examples for a test (None when there are none, or they are damaged)."""
        data = self._load()
        if name in data:
            try:
                return [{key: wire.decode(value) for key, value in example.items()} for example in data[name]]
            except (wire.WireError, AttributeError, TypeError):
                pass  # a damaged cache is regenerated, never trusted
        return None

    def examples(self, name: str, test: Any) -> Examples:
        """The stored examples for a test, generating (and storing) them the first time."""
        stored = self.stored(name)
        if stored is not None:
            return stored
        data = self._load()
        examples = generate(test)
        encoded = [{key: wire.encode(value) for key, value in ex.items()} for ex in examples]
        if not any(_holds_opaque(value) for example in encoded for value in example.values()):
            data[name] = encoded
            self._dirty = True
        return examples

    def save(self) -> None:
        """Write the store atomically; a read-only or untrusted cache folder is not an error."""
        if not self._dirty or self._data is None or self.path is None:
            return
        sealed = seal(json.dumps(self._data).encode())
        if sealed is None:
            return
        try:
            write_atomic(self.path, sealed)
            self._dirty = False
        except OSError:
            pass


def _holds_opaque(encoded: Any) -> bool:
    """True when tagged data holds a value that crossed only as a description (``{"$": "object"}``).

    Such a value cannot be replayed (it decodes to an :class:`~menace_course.sandbox.wire.Opaque`
    that equals nothing), so a test whose examples hold one is not kept. Every dict in
    tagged data carries a ``"$"`` tag; the search follows the structure, not the text.
    """
    if isinstance(encoded, list):
        return any(_holds_opaque(item) for item in encoded)
    if isinstance(encoded, dict):
        return encoded.get("$") == "object" or any(_holds_opaque(item) for item in encoded.values())
    return False


def replaying(
    test: Any, examples: Examples, shrink: bool, real: Callable[[], Any] | None = None
) -> Callable[[Any], None]:
    """A case body that runs ``test``'s own body on each stored example, in order.

    An example the body rejects (``assume(False)``) is skipped, as hypothesis skips it.
    With ``shrink``, a failure is handed to hypothesis to find the smallest failing
    example; if hypothesis finds none (it draws different examples), the first failure
    stands. ``real`` gives the test as hypothesis defines it, when ``test`` came from the
    stand-in: for shrinking, and for a body that needs hypothesis after all.
    """
    real = real or (lambda: test)

    def run(submission: Any) -> None:
        inner = test.hypothesis.inner_test
        try:
            try:
                _replay(inner, examples, submission)
            except NeedsHypothesis:
                _replay(real().hypothesis.inner_test, examples, submission)
        except Exception as first:
            if not shrink:
                raise
            failing_call = submission.last_call
            try:
                real()(submission)
            except Exception as smallest:
                raise smallest from None
            submission.last_call = failing_call
            raise first from None

    return run


def _replay(inner: Callable[..., None], examples: Examples, submission: Any) -> None:
    with warnings.catch_warnings():
        # hypothesis' own assume() warns when called outside its search, as a replay calls it.
        warnings.filterwarnings("ignore", message="Using `assume` outside")
        _replay_each(inner, examples, submission)


def _replay_each(inner: Callable[..., None], examples: Examples, submission: Any) -> None:
    for example in examples:
        try:
            inner(submission, **clone(example))
        except Unsatisfied:
            continue
        except Exception as error:
            if type(error).__name__ == "UnsatisfiedAssumption":  # hypothesis' own assume()
                continue
            raise


#: The version last read from a ``site-packages`` folder: the folder, its change time then,
#: and the version. Installing or removing a package changes the folder's time, so the
#: version is read again; a check asks for it each time (it is in the report).
_read_from: tuple[Path, int, str] | None = None


def hypothesis_version() -> str:
    """The installed hypothesis' version, found without importing it (that takes 0.1 s).

    Read from the name of its ``hypothesis-X.Y.Z.dist-info`` folder beside the package
    (again only when that folder changed); when that is not exactly one folder, from the
    package metadata (slower, as sure).
    """
    global _read_from
    spec = importlib.util.find_spec("hypothesis")
    if spec is not None and spec.origin is not None:
        site = Path(spec.origin).parent.parent
        try:
            changed = site.stat().st_mtime_ns
        except OSError:
            changed = -1
        if _read_from is not None and _read_from[:2] == (site, changed):
            return _read_from[2]
        found = [
            re.fullmatch(r"hypothesis-([\w.+-]+)\.dist-info", p.name)
            for p in site.glob("hypothesis-*.dist-info")
        ]
        versions = [m.group(1) for m in found if m]
        if len(versions) == 1:
            _read_from = (site, changed, versions[0])
            return versions[0]
    from importlib.metadata import version

    return version("hypothesis")
