"""The lesson page's MENACE, kept on the server: one engine, many students' widgets.

The widget in the browser never plays by itself: every game is played here, by
:func:`menace_course.lesson.engine.play_game`, the same code as ``menace step 3``. A
widget's whole history is small (a seed, then what was pressed), so it is the widget's
identity: the browser sends ``seed`` and ``log`` with each request, and the server finds
the MENACE they describe in a small cache, or rebuilds it by replaying the log (a few
milliseconds a hundred games). So any worker process can answer any request, a restart
loses nothing, and the same seed and the same presses give the same beads, always.

A widget's ``settings`` are fixed at Start and are part of its identity too:
``{"reward": [3, 1, -1], "start": [4, 3, 2, 1], "symmetry": true}`` (Michie's, the
default). A log is a list of entries:

* ``{"type": "games", "count": N, "opponent": "perfect" | "random" | "menace"}``: N
  games (``"menace"`` is a second MENACE as O, with boxes of its own, learning too);
* ``{"type": "human", "moves": [s, ...]}``: one game against a person, who played O on
  those squares in turn (MENACE's moves come from its boxes, as always).

Every game is played by :func:`menace_course.lesson.experiments.games.play_one`, which
``menace experiment games`` uses too: the same seed and settings give the same games in
the terminal. The engine draws from Python's shared ``random`` generator, as the page's programs do.
Each widget keeps its own generator state; it is swapped in under a lock while the
widget's games are played, and the process's own state is put back afterwards.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from menace_course.lesson.engine import Boxes, GameRecord, Result, Settings, play_game
from menace_course.lesson.experiments.games import OPPONENTS, Table, play_one
from menace_course.service.languages import gettext as _
from menace_course.service.lesson.widget_settings import (
    DEFAULT_SETTINGS,
    BadRequest,
    engine_settings,
    parse_settings,
    whole,
)

__all__ = [
    "MAX_GAMES",
    "RANDOM_LOCK",
    "BadRequest",
    "Games",
    "HumanGame",
    "Widget",
    "WidgetCache",
    "cost_of",
    "games_in",
    "merged",
    "parse_action",
    "parse_log",
    "parse_settings",
]
#: Most games one widget may play in all: this bounds the work one request can ask for
#: (replaying a log of this many games costs about a third of a second of CPU). The page
#: plays 1 or 100 games a press; "a few hundred games" is what the lesson asks for.
MAX_GAMES = 5000
#: Most games one press may play.
MAX_AT_ONCE = 1000
#: Most entries in a log.
MAX_LOG = 2000
#: Seeds are whole numbers in this range.
MAX_SEED = 2**31

#: Held by whatever in this process swaps a state into Python's shared ``random`` generator
#: (the widgets, the trained board, the page's printed outputs), so no two interleave.
RANDOM_LOCK = threading.Lock()


@dataclass(frozen=True)
class Games:
    """``count`` games against a built-in player."""

    count: int
    opponent: Literal["perfect", "random", "menace"]

    def entry(self) -> dict[str, Any]:
        return {"type": "games", "count": self.count, "opponent": self.opponent}


@dataclass(frozen=True)
class HumanGame:
    """A game against a person: the squares O played so far, in order."""

    moves: tuple[int, ...]

    def entry(self) -> dict[str, Any]:
        return {"type": "human", "moves": list(self.moves)}


Action = Games | HumanGame


def parse_action(data: object, most: int = MAX_AT_ONCE) -> Action:
    """One log entry (or one press, of at most ``most`` games) from JSON, checked."""
    if not isinstance(data, Mapping):
        raise BadRequest(_("an action must be an object"))
    kind = data.get("type")
    if kind == "games":
        opponent = data.get("opponent")
        if opponent not in OPPONENTS:
            raise BadRequest(
                _("%(key)s must be one of %(values)s")
                % {"key": "opponent", "values": "'perfect', 'random', 'menace'"}
            )
        count = whole(data.get("count"), 1, most, "count")
        return Games(count, opponent)
    if kind == "human":
        moves = data.get("moves")
        if not isinstance(moves, list) or len(moves) > 4:
            raise BadRequest(_("%(key)s must be a list of at most %(n)s squares") % {"key": "moves", "n": 4})
        return HumanGame(tuple(whole(m, 0, 8, _("a square")) for m in moves))
    raise BadRequest(_("%(key)s must be one of %(values)s") % {"key": "type", "values": "'games', 'human'"})


def parse_log(data: object) -> list[Action]:
    """A whole log from JSON, checked (its length and its number of games are bounded)."""
    if not isinstance(data, list):
        raise BadRequest(_("%(key)s must be a list") % {"key": "log"})
    if len(data) > MAX_LOG:
        raise BadRequest(_("the log is too long (at most %(n)s entries): press Start") % {"n": MAX_LOG})
    actions = [parse_action(entry, MAX_GAMES) for entry in data]
    if games_in(actions) > MAX_GAMES:
        raise BadRequest(_("a widget plays at most %(n)s games: press Start") % {"n": MAX_GAMES})
    return actions


def merged(log: Sequence[Action], action: Action) -> list[Action]:
    """``log`` with ``action`` added; games against the same opponent right after games
    against it join that entry (the same games, so a long continuous run stays one entry)."""
    last = log[-1] if log else None
    if (
        isinstance(action, Games)
        and isinstance(last, Games)
        and last.opponent == action.opponent
        and last.count + action.count <= MAX_GAMES
    ):
        return [*log[:-1], Games(last.count + action.count, action.opponent)]
    return [*log, action]


class _YourTurn(Exception):
    """Raised by the person's player when it has no move yet: the game waits for a click."""

    def __init__(self, board: list[str]) -> None:
        super().__init__("waiting for O's move")
        self.board = list(board)


class _IllegalMove(Exception):
    pass


def _person(moves: Sequence[int]) -> Any:
    """A player that plays ``moves`` in turn, then waits (raises :class:`_YourTurn`)."""
    queue = list(moves)

    def move(board: list[str]) -> int:
        if not queue:
            raise _YourTurn(board)
        square = queue.pop(0)
        if board[square] != " ":
            raise _IllegalMove(_("square %(square)s is taken") % {"square": square})
        return square

    return move


@dataclass
class Widget:
    """One MENACE as a widget shows it: its boxes, its generator, and every game's result."""

    seed: int
    boxes: Boxes = field(default_factory=dict)
    random_state: Any = None
    results: list[Result] = field(default_factory=list)
    opponents: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_SETTINGS))
    o_boxes: Boxes = field(default_factory=dict)

    @classmethod
    def start(cls, seed: int, settings: Mapping[str, Any] | None = None) -> Widget:
        """A fresh MENACE: no boxes yet (each is filled when first needed), seeded."""
        generator = random.Random(seed)
        chosen = dict(settings) if settings is not None else dict(DEFAULT_SETTINGS)
        return cls(seed, random_state=generator.getstate(), settings=chosen)

    @property
    def engine(self) -> Settings:
        """The engine's settings for this widget."""
        return engine_settings(self.settings)

    def copy(self) -> Widget:
        """An independent copy (the cache's widgets are never changed in place)."""
        return Widget(
            self.seed,
            {position: dict(box) for position, box in self.boxes.items()},
            self.random_state,
            list(self.results),
            list(self.opponents),
            dict(self.settings),
            {position: dict(box) for position, box in self.o_boxes.items()},
        )

    @contextmanager
    def _own_random(self) -> Iterator[None]:
        with RANDOM_LOCK:
            saved = random.getstate()
            random.setstate(self.random_state)
            try:
                yield
            finally:
                self.random_state = random.getstate()
                random.setstate(saved)

    def apply(self, action: Action) -> dict[str, Any] | None:
        """Play what ``action`` asks; return the last game, shown move by move (or None).

        A game against a person that is not over is not played for real: the widget is
        left as it was, and the game so far comes back with ``"your_turn": true``.

        Raises:
            BadRequest: a person's move is on a square that is taken.
        """
        if isinstance(action, Games):
            shown = None
            table = Table(self.engine, self.boxes, self.o_boxes)
            with self._own_random():
                for number in range(action.count):
                    record = GameRecord() if number == action.count - 1 else None
                    result = play_one(table, action.opponent, record)
                    self._finish(result, action.opponent)
                    if record is not None:
                        shown = _game_view(record, result, self.boxes)
            return shown
        return self._human(action)

    def _finish(self, result: Result, opponent: str) -> None:
        self.results.append(result)
        self.opponents.append(opponent)

    def _human(self, action: HumanGame) -> dict[str, Any]:
        trial = self.copy()
        record = GameRecord()
        try:
            with trial._own_random():
                result = play_game(trial.boxes, _person(action.moves), trial.engine, record=record)
        except _YourTurn as waiting:
            return _game_view(record, None, None, waiting.board)
        except _IllegalMove as error:
            raise BadRequest(str(error)) from None
        if len(record.moves[1::2]) != len(action.moves):
            raise BadRequest(_("the game was over before all of O's moves were played"))
        self.boxes, self.random_state = trial.boxes, trial.random_state
        self._finish(result, "you")
        return _game_view(record, result, self.boxes)

    # -- what the page shows ------------------------------------------------------

    def tallies(self) -> dict[str, int]:
        """Games played, won, drawn and lost, and boxes opened (by MENACE, and by a learning O)."""
        return {
            "played": len(self.results),
            "won": self.results.count("win"),
            "drawn": self.results.count("draw"),
            "lost": self.results.count("loss"),
            "boxes": len(self.boxes),
            "o_boxes": len(self.o_boxes),
        }

    def segments(self) -> list[dict[str, Any]]:
        """Where each run of games against one opponent starts (the chart's dashed lines)."""
        runs: list[dict[str, Any]] = []
        for index, opponent in enumerate(self.opponents):
            if not runs or runs[-1]["opponent"] != opponent:
                runs.append({"start": index, "opponent": opponent})
        return runs

    def first_box(self) -> dict[str, int] | None:
        """The box for the empty board, by square, once MENACE has opened it."""
        box = self.boxes.get(" " * 9)
        return None if box is None else {str(s): n for s, n in box.items()}

    def all_boxes(self, mark: str = "X") -> list[dict[str, Any]]:
        """Every box opened (by MENACE, or with ``mark`` 'O' by the learning O), in the order
        of the moves, each drawn as its named position."""
        shown: list[dict[str, Any]] = []
        for position, box in (self.boxes if mark == "X" else self.o_boxes).items():
            marks = 9 - position.count(" ")
            shown.append(
                {
                    "position": position,
                    "move": marks + 1,
                    "beads": {str(s): n for s, n in box.items()},
                    "total": sum(box.values()),
                }
            )
        shown.sort(key=lambda b: (int(b["move"]), -int(b["total"]), str(b["position"])))
        return shown

    def summary(self) -> dict[str, Any]:
        """Everything the chart and the tallies need."""
        letters = {"win": "w", "draw": "d", "loss": "l"}
        return {
            "seed": self.seed,
            "settings": dict(self.settings),
            "results": "".join(letters[r] for r in self.results),
            "segments": self.segments(),
            "tallies": self.tallies(),
            "first_box": self.first_box(),
        }


def _game_view(
    record: GameRecord,
    result: Result | None,
    after: Boxes | None,
    board: list[str] | None = None,
) -> dict[str, Any]:
    """One game for the page: the moves in order, and a card for each box MENACE opened.

    A card shows the board as it was, each colour's beads by the board's own squares,
    and the square of the bead drawn; once the game is over, the change in that bead's
    count, read from the boxes before and after MENACE learned.
    """
    moves = [{"mark": "XO"[i % 2], "square": s} for i, s in enumerate(record.moves)]
    cards = []
    for number, opened in enumerate(record.opened):  # MENACE's moves are every other move
        card: dict[str, Any] = {
            "board": "".join(opened.board),
            "beads": {str(s): n for s, n in opened.beads_on_board().items()},
            "drawn": opened.square,
            "move": 2 * number,
        }
        if after is not None:
            card["change"] = after[opened.position][opened.bead] - opened.beads[opened.bead]
        cards.append(card)
    view: dict[str, Any] = {"moves": moves, "cards": cards, "result": result, "your_turn": result is None}
    if record.resigned is not None:
        view["resigned"] = {"board": "".join(record.resigned), "move": len(record.moves)}
    if board is not None:
        view["board"] = "".join(board)
    return view


def _key(seed: int, log: Sequence[Action], settings: Mapping[str, Any]) -> str:
    entries = [action.entry() for action in log]
    text = json.dumps([seed, dict(settings), entries], separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def games_in(log: Sequence[Action]) -> int:
    """How many games ``log`` plays (a game against a person counts as one)."""
    return sum(a.count if isinstance(a, Games) else 1 for a in log)


def cost_of(data: object) -> int:
    """The games a widget request's body may make the server play, before it is checked.

    What the rate limit of the widget's endpoint counts: the games of its log (all
    replayed unless the widget is cached) and of its action; a body that does not
    parse counts 1 (it is refused a moment later).
    """
    if not isinstance(data, Mapping):
        return 1
    total = 1
    for entry in [*(data.get("log") or [] if isinstance(data.get("log"), list) else []), data.get("action")]:
        count = entry.get("count") if isinstance(entry, Mapping) else None
        total += min(count, MAX_GAMES) if type(count) is int and count > 0 else 1
    return min(total, 2 * MAX_GAMES)


class WidgetCache:
    """The most recently used widgets, by seed and log; anything else is rebuilt by replay."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._widgets: OrderedDict[str, Widget] = OrderedDict()
        self._lock = threading.Lock()
        self.replayed = 0  #: how many widgets had to be rebuilt from their logs

    def get(self, seed: int, log: Sequence[Action], settings: Mapping[str, Any] | None = None) -> Widget:
        """A copy of the widget that ``seed``, ``log`` and ``settings`` describe."""
        settings = dict(settings) if settings is not None else dict(DEFAULT_SETTINGS)
        key = _key(seed, log, settings)
        with self._lock:
            found = self._widgets.get(key)
            if found is not None:
                self._widgets.move_to_end(key)
                return found.copy()
        widget = Widget.start(seed, settings)
        for action in log:
            if isinstance(action, HumanGame):
                shown = widget.apply(action)
                if shown is None or shown["result"] is None:
                    raise BadRequest(_("the log holds a game against you that is not over"))
            else:
                widget.apply(action)
        self.replayed += 1
        self.put(seed, log, widget)
        return widget.copy()

    def put(self, seed: int, log: Sequence[Action], widget: Widget) -> None:
        """Keep ``widget`` (a copy of it) as the one ``seed``, ``log`` and its settings describe."""
        key = _key(seed, log, widget.settings)
        with self._lock:
            self._widgets[key] = widget.copy()
            self._widgets.move_to_end(key)
            while len(self._widgets) > self.size:
                self._widgets.popitem(last=False)
