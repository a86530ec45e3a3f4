# Right: a dataclass, an Enum, typing's hints, functools.lru_cache and a namedtuple (each calls into the interpreter's frames on Python 3.12 and 3.13).
from collections import namedtuple
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache, reduce
from typing import NamedTuple, Optional


class Result(Enum):
    WIN = 'win'
    DRAW = 'draw'
    LOSS = 'loss'


Change = namedtuple('Change', ['square', 'beads'])


class Rule(NamedTuple):
    added: int
    floor: Optional[int]


@dataclass(frozen=True)
class Box:
    beads: tuple = field(default_factory=tuple)

    def changed(self, change: Change) -> 'Box':
        new = list(self.beads)
        new[change.square] = change.beads
        return Box(tuple(new))


@lru_cache(maxsize=None)
def rule(result: Result) -> Rule:
    return {Result.WIN: Rule(3, None), Result.DRAW: Rule(1, None), Result.LOSS: Rule(-1, 0)}[result]


def after_game(beads: list, square: int, result: str) -> list:
    wanted = rule(Result(result))
    count = reduce(lambda total, step: total + step, [beads[square], wanted.added])
    if wanted.floor is not None:
        count = max(wanted.floor, count)
    return list(Box(tuple(beads)).changed(Change(square, count)).beads)
