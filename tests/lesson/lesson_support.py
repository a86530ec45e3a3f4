"""Helpers for the lesson's tests: the repository's folders, the golden outputs, the
reference solutions, and an independent model of the board and its symmetries."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

from tests.support import Ran  # noqa: F401  (the tests import it from here)

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"


def golden(number: int) -> list[str]:
    """The page's printed output of Step ``number``, as typed from the page."""
    return (GOLDEN / f"step{number}.txt").read_text(encoding="utf-8").splitlines()


def load_reference(name: str) -> ModuleType:
    """Import ``reference/<name>.py`` by its path (it is not part of the package)."""
    spec = importlib.util.spec_from_file_location(f"reference_{name}", REPO / "reference" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The 8 symmetries of the square, written as maps of (row, column), not as the
# lesson's lists of squares, so that the tests do not share the code they check.
_MOVES: list[Callable[[int, int], tuple[int, int]]] = [
    lambda r, c: (r, c),
    lambda r, c: (c, 2 - r),
    lambda r, c: (2 - r, 2 - c),
    lambda r, c: (2 - c, r),
    lambda r, c: (r, 2 - c),
    lambda r, c: (c, r),
    lambda r, c: (2 - r, c),
    lambda r, c: (2 - c, 2 - r),
]


def versions(board: str) -> Iterator[str]:
    """The board's 8 turned and flipped versions (some may be equal)."""
    for move in _MOVES:
        cells = [" "] * 9
        for square in range(9):
            r, c = move(*divmod(square, 3))
            cells[3 * r + c] = board[square]
        yield "".join(cells)


def canonical(board: str) -> str:
    """The smallest version of the board: the lesson's name, found independently."""
    return min(versions(board))


def line_of_three(board: str) -> str | None:
    """The mark with three in a row, column or diagonal, found by coordinates."""
    rows = [board[3 * r : 3 * r + 3] for r in range(3)]
    lines = rows + ["".join(row[c] for row in rows) for c in range(3)]
    lines += ["".join(rows[i][i] for i in range(3)), "".join(rows[i][2 - i] for i in range(3))]
    for line in lines:
        if line in ("XXX", "OOO"):
            return line[0]
    return None


def reachable() -> dict[str, int]:
    """Every board that can come up in a game (X first, play stops at a line), by marks."""
    found = {" " * 9: 0}
    frontier = [" " * 9]
    while frontier:
        board = frontier.pop()
        if line_of_three(board) or " " not in board:
            continue
        mark = "X" if board.count(" ") % 2 == 1 else "O"
        for square in range(9):
            if board[square] == " ":
                after = board[:square] + mark + board[square + 1 :]
                if after not in found:
                    found[after] = 9 - after.count(" ")
                    frontier.append(after)
    return found
