"""Reference solution for the challenge "Boxes for the second player" (count_boxes).

``count_boxes(mark)`` counts the matchboxes a MENACE playing ``mark`` needs before
each of its moves, in order: one box for each position where ``mark`` is to move,
a position and its turned or flipped versions counting once.

Decisions where the page is silent:

* Finished games (a line of three already on the board) need no box, and neither
  does a move with one square left (X's 5th move). O's moves come with 8, 6, 4 and 2
  empty squares, so O gets four counts: before the game's 2nd, 4th, 6th and 8th
  moves, and its last one (2 squares left) is counted.
* Only positions that can come up in a game count: X moves first, and play stops
  at a line of three.
* ``mark`` must be exactly ``'X'`` or ``'O'``; anything else is a ValueError.

It is self-contained (it carries its own ``winner`` and ``name``) because it runs
where nothing else can be imported.
"""

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]
WAYS = []
_way = list(range(9))
for _ in range(4):
    WAYS.append(_way)
    WAYS.append([_way[i] for i in FLIP])
    _way = [_way[i] for i in TURN]


def winner(board):
    """The mark with a line of three, or None."""
    for a, b, c in LINES:
        if board[a] != " " and board[a] == board[b] == board[c]:
            return board[a]
    return None


def name(board):
    """The smallest of the board's 8 versions: one name for all of them."""
    return min("".join(board[i] for i in way) for way in WAYS)


def count_boxes(mark):
    """How many boxes ``mark`` needs before each of its moves, as a list, in order."""
    if mark not in ("X", "O"):
        raise ValueError(f"mark must be 'X' or 'O', not {mark!r}")
    boxes = {}  # number of marks on the board -> names of positions where mark chooses
    seen = set()

    def visit(board):
        if winner(board) or " " not in board:
            return
        key = name(board)
        if key in seen:  # a turned or flipped copy of a position already searched
            return
        seen.add(key)
        empty = board.count(" ")
        me = "X" if empty % 2 == 1 else "O"
        if me == mark and empty > 1:
            boxes.setdefault(9 - empty, set()).add(key)
        for i in range(9):
            if board[i] == " ":
                board[i] = me
                visit(board)
                board[i] = " "

    visit([" "] * 9)
    return [len(boxes[marks]) for marks in sorted(boxes)]


if __name__ == "__main__":
    print(count_boxes("X"))
    print(count_boxes("O"))
