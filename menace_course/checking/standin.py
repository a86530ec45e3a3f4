"""A stand-in for hypothesis, so that replaying a property test's stored examples does not import it.

Replaying (:mod:`~menace_course.checking.replay`) runs a property test's own body on the
examples hypothesis generated for it once; hypothesis itself is needed again only to
generate them (a new or edited test) or to shrink a visible test's failure. Yet a hidden
test module imports hypothesis at its top (``from hypothesis import given``), and that
import alone took about 0.1 s, a third of a whole ``menace check``.

So a hidden test module is first imported with this stand-in in place of hypothesis (its
own ``__import__`` answers ``hypothesis`` and ``hypothesis.strategies`` with the objects
below; nothing global changes, no other module sees them):

* ``given(name=strategy, ...)`` keeps the test's body and the names of its arguments;
* ``example``, ``settings``, ``HealthCheck`` and the like do nothing that matters to a replay;
* a strategy (``st.lists(st.integers(0, 6))``, ``.map``, ``|``, ``@st.composite``) is an
  inert :class:`Strategy` that can only be combined and handed to ``given``;
* ``assume`` and ``reject`` skip an example, as hypothesis would; ``note``, ``event`` and
  ``target`` only matter to hypothesis' own search.

Whatever else a module asks of it (``given`` with positional strategies, ``find``,
``hypothesis.extra``, a strategy used as a value, ``.example()``) raises
:class:`NeedsHypothesis`, and the grader imports the module with hypothesis itself: the
stand-in answers only what it can answer exactly as hypothesis would for a replay.

Example:
    module = import_file(path, importer=standin_import)
    test = module.test_agrees_on_any_box          # test.hypothesis.inner_test is the body
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import SimpleNamespace
from typing import Any, NoReturn


class NeedsHypothesis(Exception):
    """The module (or a test's body) uses hypothesis in a way only hypothesis can answer."""


class Unsatisfied(Exception):
    """``assume(False)`` or ``reject()`` in a replayed example: hypothesis would skip it."""


class Strategy:
    """An inert description of a strategy: it can be combined and given to ``given``, nothing else."""

    #: A strategy's methods that make another strategy.
    COMBINATORS = frozenset({"map", "filter", "flatmap"})

    def __getattr__(self, name: str) -> Any:
        """``.map``, ``.filter``, ``.flatmap`` give another stand-in; anything else needs hypothesis."""
        if name in self.COMBINATORS:
            return _strategy_maker(name)
        raise NeedsHypothesis(f"a strategy's {name!r}")

    def __or__(self, other: object) -> Strategy:
        """``a | b``: one of two strategies."""
        return Strategy()

    __ror__ = __or__

    def __bool__(self) -> NoReturn:
        """A strategy is not a value: only hypothesis knows what it draws."""
        raise NeedsHypothesis("a strategy used as a value")

    def __iter__(self) -> NoReturn:
        """A strategy is not a value: only hypothesis knows what it draws."""
        raise NeedsHypothesis("a strategy used as a value")

    def __repr__(self) -> str:
        """Say what it is, should it ever be shown."""
        return "<strategy (hypothesis not loaded)>"


def _strategy_maker(name: str) -> Callable[..., Strategy]:
    def make(*args: Any, **kwargs: Any) -> Strategy:
        return Strategy()

    make.__name__ = name
    return make


def _composite(function: Callable[..., Any]) -> Callable[..., Strategy]:
    """``@st.composite``: the decorated function gives a strategy when called."""
    return _strategy_maker(getattr(function, "__name__", "composite"))


class _Strategies:
    """``hypothesis.strategies``: every public strategy gives an inert :class:`Strategy`."""

    composite = staticmethod(_composite)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name[:1].isupper():  # SearchStrategy, DataObject, ...
            raise NeedsHypothesis(f"hypothesis.strategies.{name}")
        return _strategy_maker(name)


class _Anything:
    """``HealthCheck``, ``Phase``, ``Verbosity``: named only in settings, which a replay ignores."""

    def __getattr__(self, name: str) -> _Anything:
        return self

    def __iter__(self) -> Iterator[Any]:
        return iter(())


class _Settings:
    """``settings``: how hypothesis generates examples, which a replay does not do."""

    def __call__(self, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
        return lambda test: test

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None  # register_profile, load_profile, ...


class _Example:
    """``@example(...)``: the stored examples already hold it (they begin with the explicit ones)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:
            raise NeedsHypothesis("an example given by position")

    def __call__(self, test: Any) -> Any:
        return test

    def via(self, *args: Any) -> _Example:
        return self

    def xfail(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NeedsHypothesis("an example expected to fail")


def given(*args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Keep the test's body (``.hypothesis.inner_test``) and its strategies' names, as hypothesis does."""
    if args or not kwargs:
        raise NeedsHypothesis("given() with strategies by position")

    def decorate(test: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(test)
        def needs_hypothesis(*call_args: Any, **call_kwargs: Any) -> NoReturn:
            raise NeedsHypothesis("running a property test for real")

        needs_hypothesis.hypothesis = SimpleNamespace(  # type: ignore[attr-defined]
            inner_test=test, _given_kwargs=dict(kwargs)
        )
        return needs_hypothesis

    return decorate


def assume(condition: object) -> bool:
    """Skip this example unless ``condition`` holds (as hypothesis would)."""
    if not condition:
        raise Unsatisfied
    return True


def reject() -> NoReturn:
    """Skip this example (as hypothesis would)."""
    raise Unsatisfied


def _only_for_the_search(*args: Any, **kwargs: Any) -> None:
    """``note``, ``event``, ``target``: they steer or report hypothesis' search, not a replay."""


class _Hypothesis:
    """The ``hypothesis`` package as a replayed test module sees it."""

    given = staticmethod(given)
    example = _Example
    settings = _Settings()
    assume = staticmethod(assume)
    reject = staticmethod(reject)
    note = event = target = staticmethod(_only_for_the_search)
    HealthCheck = Phase = Verbosity = _Anything()
    strategies = _Strategies()

    def __getattr__(self, name: str) -> NoReturn:
        raise NeedsHypothesis(f"hypothesis.{name}")


HYPOTHESIS = _Hypothesis()


def standin_import(
    name: str,
    globals: Mapping[str, object] | None = None,
    locals: Mapping[str, object] | None = None,
    fromlist: Sequence[str] | None = (),
    level: int = 0,
) -> Any:
    """``__import__`` for a module imported with the stand-in: hypothesis is the stand-in.

    ``import hypothesis``, ``from hypothesis import given``, ``import hypothesis.strategies
    as st`` and ``from hypothesis.strategies import lists`` get the stand-in; any other part
    of hypothesis needs hypothesis; every other import is Python's own.
    """
    if level == 0 and (name == "hypothesis" or name.startswith("hypothesis.")):
        if name == "hypothesis" or (name == "hypothesis.strategies" and not fromlist):
            return HYPOTHESIS
        if name == "hypothesis.strategies":
            return HYPOTHESIS.strategies
        raise NeedsHypothesis(name)
    return builtins.__import__(name, globals, locals, fromlist or (), level)
