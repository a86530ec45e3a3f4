"""MENACE: Donald Michie's matchbox machine, as a small program.

MENACE keeps one matchbox for every position it can meet, named by
:func:`~menace_course.lesson.noughts.name` so that the 8 turned and flipped versions of a
position share a box. A box holds beads of one colour for each different move; a
bead is drawn at random (more beads, more likely) and its square is played. When
the game ends, every bead drawn goes back with more of its colour after a win or a
draw, and stays out after a loss. That is all the learning there is.

The pieces, in the order a game uses them:

* :class:`Settings`: the starting beads, the rewards, and the empty-box rule;
* :func:`new_box` and :func:`draw_bead`: a box, and a bead from it;
* :func:`play_game`: one game against any player, then the learning (a
  :class:`GameRecord`, if given, keeps every move and every box opened, to show the game);
* :func:`play_two_learners`: one game between two MENACEs, both learning;
* :func:`choose_move`: a trained MENACE's move, without learning (to play against it).

With the default settings, MENACE as X makes exactly the random draws that the
lesson's Step 3 program makes, so seeded runs give the page's numbers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from menace_course.lesson.noughts import name, to_move, winner

__all__ = [
    "MICHIE",
    "REWARD",
    "START",
    "START_O",
    "Box",
    "Boxes",
    "GameRecord",
    "OpenedBox",
    "Player",
    "Result",
    "Settings",
    "choose_move",
    "draw_bead",
    "new_box",
    "play",
    "play_game",
    "play_two_learners",
    "result_for",
]

#: A box: for each square (of the position's name) a colour, and how many beads of it.
Box = dict[int, int]
#: All of one MENACE's boxes, each under the name of its position.
Boxes = dict[str, Box]
#: A player: given the board (a list of 9 squares), the square it plays.
Player = Callable[[list[str]], int]
#: How a game ended, for one side.
Result = Literal["win", "draw", "loss"]

#: Michie's beads of each colour, by how many squares are empty (MENACE playing X).
START: Mapping[int, int] = MappingProxyType({9: 4, 7: 3, 5: 2, 3: 1})
#: The same numbers for MENACE playing O: 4 beads before its 1st move, 3 before its 2nd, ...
START_O: Mapping[int, int] = MappingProxyType({8: 4, 6: 3, 4: 2, 2: 1})
#: Beads added to each bead drawn: 3 more after a win, 1 more after a draw, 1 fewer after a loss.
REWARD: Mapping[str, int] = MappingProxyType({"win": 3, "draw": 1, "loss": -1})


@dataclass(frozen=True)
class Settings:
    """What a MENACE starts with and how it learns. The defaults are Michie's.

    Attributes:
        start: beads of each colour in a new box, by the number of empty squares,
            for MENACE playing X.
        start_o: the same for MENACE playing O.
        reward: beads added to each drawn bead for ``'win'``, ``'draw'`` and
            ``'loss'`` (negative takes beads away; a colour never goes below 0).
        refill: when a box has no beads left, MENACE resigns (a loss); with ``refill``
            the box is filled again with its starting beads, so it can try afresh.
        symmetry: whether the 8 turned and flipped versions of a position share one box
            (Michie's way). Without it every board is its own position, with a colour for
            every empty square, and MENACE needs many more boxes (2,201 as X, not 304).
    """

    start: Mapping[int, int] = field(default_factory=lambda: START)
    start_o: Mapping[int, int] = field(default_factory=lambda: START_O)
    reward: Mapping[str, int] = field(default_factory=lambda: REWARD)
    refill: bool = True
    symmetry: bool = True

    def name(self, board: Sequence[str]) -> tuple[str, list[int]]:
        """The position's name and way: :func:`~menace_course.lesson.noughts.name`, or with
        ``symmetry`` off the board itself, as it stands."""
        if self.symmetry:
            return name(board)
        return "".join(board), list(range(9))

    def new_box(self, position: str, mark: str) -> Box:
        """A new box for ``position`` with these settings' beads (and symmetry)."""
        return new_box(position, mark, self.start_for(mark), self.symmetry)

    def start_for(self, mark: str) -> Mapping[int, int]:
        """The starting beads for MENACE playing ``mark``."""
        return self.start if mark == "X" else self.start_o


#: Michie's MENACE.
MICHIE = Settings()


def new_box(
    position: str, mark: str = "X", start: Mapping[int, int] | None = None, symmetry: bool = True
) -> Box:
    """A new box for a named position: one colour for each *different* move.

    Two moves are the same move when the positions they lead to have the same name
    (one is the other, turned or flipped); only the first of them, in square order,
    gets a colour. Each colour gets ``start[empty squares]`` beads. With ``symmetry``
    off, every empty square is a move of its own.

    >>> new_box(' ' * 9)
    {0: 4, 1: 4, 4: 4}
    """
    beads = (start if start is not None else START if mark == "X" else START_O)[position.count(" ")]
    box: Box = {}
    seen: list[str] = []
    for square in range(9):
        if position[square] == " ":
            after = list(position)
            after[square] = mark
            after_name = name(after)[0] if symmetry else str(square)
            if after_name not in seen:
                seen.append(after_name)
                box[square] = beads
    return box


def draw_bead(box: Box) -> int:
    """A square from the box, at random: a colour with more beads is more likely."""
    squares = list(box)
    return random.choices(squares, weights=[box[s] for s in squares])[0]


def result_for(outcome: str, mark: str) -> Result:
    """Turn a game's outcome (``'X'``, ``'O'`` or ``'draw'``) into ``mark``'s result."""
    if outcome == "draw":
        return "draw"
    return "win" if outcome == mark else "loss"


def play(x: Callable[[list[str]], int | None], o: Callable[[list[str]], int | None]) -> str:
    """Play one game, X first; return the winner's mark, or ``'draw'``.

    A player that answers None instead of a square resigns, and the other side wins.
    """
    players = {"X": x, "O": o}
    board = [" "] * 9
    mark = "X"
    while True:
        square = players[mark](board)
        if square is None:
            return "O" if mark == "X" else "X"
        board[square] = mark
        if winner(board):
            return mark
        if " " not in board:
            return "draw"
        mark = "O" if mark == "X" else "X"


@dataclass(frozen=True)
class OpenedBox:
    """One box MENACE opened in a game, as it was when the bead was drawn.

    Attributes:
        board: the board before MENACE's move (9 one-letter strings).
        position: the position's name (the key of its box).
        way: how the name was made: the bead for the name's square ``s`` is played on the
            board's square ``way[s]``.
        beads: the box's beads before the draw, by the name's squares.
        bead: the name's square of the bead drawn.
    """

    board: tuple[str, ...]
    position: str
    way: tuple[int, ...]
    beads: dict[int, int]
    bead: int

    @property
    def square(self) -> int:
        """The board's square that the drawn bead played."""
        return self.way[self.bead]

    def beads_on_board(self) -> dict[int, int]:
        """The box's beads by the board's own squares (how a card beside the board shows them)."""
        return {self.way[s]: n for s, n in self.beads.items()}


@dataclass
class GameRecord:
    """What happened in one game, for showing it move by move (nothing here changes the game).

    Attributes:
        moves: every square played, in order, X first.
        opened: each box MENACE opened, in order.
        resigned: the board where MENACE found its box empty and resigned, if it did.
    """

    moves: list[int] = field(default_factory=list)
    opened: list[OpenedBox] = field(default_factory=list)
    resigned: tuple[str, ...] | None = None


class _Learner:
    """One MENACE during one game: its boxes, its mark, and the beads it drew."""

    def __init__(self, boxes: Boxes, mark: str, settings: Settings, record: GameRecord | None = None) -> None:
        self.boxes, self.mark, self.settings = boxes, mark, settings
        self.drawn: list[tuple[str, int]] = []
        self.record = record

    def _new_box(self, position: str) -> Box:
        return self.settings.new_box(position, self.mark)

    def move(self, board: list[str]) -> int | None:
        """Open the position's box and play a bead from it; None means MENACE resigns."""
        if board.count(" ") == 1:  # one square left: no choice, no box
            return board.index(" ")
        position, way = self.settings.name(board)
        if position not in self.boxes:  # the matchbox is filled the first time it is needed
            self.boxes[position] = self._new_box(position)
        box = self.boxes[position]
        if sum(box.values()) == 0:  # every move it knows here has lost
            if self.record is not None:
                self.record.resigned = tuple(board)
            if self.settings.refill:
                self.boxes[position] = self._new_box(position)
            return None
        bead = draw_bead(box)
        self.drawn.append((position, bead))
        if self.record is not None:
            self.record.opened.append(OpenedBox(tuple(board), position, tuple(way), dict(box), bead))
        return way[bead]

    def learn(self, result: Result) -> None:
        """Put each drawn bead back with the reward for ``result`` (never below 0)."""
        change = self.settings.reward[result]
        for position, bead in self.drawn:
            box = self.boxes[position]
            box[bead] = max(0, box[bead] + change)


def _recorded(
    player: Callable[[list[str]], int | None], moves: list[int]
) -> Callable[[list[str]], int | None]:
    def move(board: list[str]) -> int | None:
        square = player(board)
        if square is not None:
            moves.append(square)
        return square

    return move


def play_game(
    boxes: Boxes,
    opponent: Player,
    settings: Settings = MICHIE,
    mark: str = "X",
    record: GameRecord | None = None,
) -> Result:
    """MENACE (playing ``mark``, X by default) plays one game against ``opponent``, then learns.

    New boxes are added to ``boxes`` as positions come up. Returns MENACE's result.
    ``record``, if given, is filled in as the game goes (the moves, the boxes opened); it
    draws no random numbers, so a recorded game is the same game as an unrecorded one.
    """
    menace = _Learner(boxes, mark, settings, record)
    x_player: Callable[[list[str]], int | None] = menace.move
    o_player: Callable[[list[str]], int | None] = opponent
    if mark != "X":
        x_player, o_player = opponent, menace.move
    if record is not None:
        x_player, o_player = _recorded(x_player, record.moves), _recorded(o_player, record.moves)
    outcome = play(x_player, o_player)
    result = result_for(outcome, mark)
    menace.learn(result)
    return result


def play_two_learners(
    x_boxes: Boxes, o_boxes: Boxes, settings: Settings = MICHIE, record: GameRecord | None = None
) -> Result:
    """Two MENACEs play each other, each drawing from and learning in its own boxes.

    Returns X's result. ``record``, if given, keeps the moves and the boxes X opened.
    """
    x, o = _Learner(x_boxes, "X", settings, record), _Learner(o_boxes, "O", settings)
    x_player: Callable[[list[str]], int | None] = x.move
    o_player: Callable[[list[str]], int | None] = o.move
    if record is not None:
        x_player, o_player = _recorded(x_player, record.moves), _recorded(o_player, record.moves)
    outcome = play(x_player, o_player)
    x.learn(result_for(outcome, "X"))
    o.learn(result_for(outcome, "O"))
    return result_for(outcome, "X")


def choose_move(boxes: Boxes, board: Sequence[str], settings: Settings = MICHIE) -> int:
    """A trained MENACE's move on ``board``, for whichever mark is to move; nothing is learned.

    A position it has never met, or whose box is empty, gets a fresh box's beads.
    """
    if board.count(" ") == 1:
        return list(board).index(" ")
    mark = to_move(board)
    position, way = settings.name(board)
    box = boxes.get(position) or settings.new_box(position, mark)
    if sum(box.values()) == 0:
        box = settings.new_box(position, mark)
    return way[draw_bead(box)]
