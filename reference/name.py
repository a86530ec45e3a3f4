"""Reference solution for the challenge "One name for eight versions" (name).

``name(board)`` gives every position one name, the same for all 8 of its turned and
flipped versions: the smallest of the 8 versions as a string (Python compares strings
letter by letter, and ``' ' < 'O' < 'X'``), together with the way that makes it, so that
a move on the name's square ``s`` can be played on the board's square ``way[s]``. The
lesson's ``name`` does it for the 3 x 3 board with its 8 ``WAYS``; this one does it for a
4 x 4 board too (the lesson asks how many boxes a 4 x 4 MENACE would need), so the 8
ways are made from a turn and a flip for the board's size.

Decisions where the page is silent:

* ``board`` is a list of 9 squares (3 x 3) or 16 (4 x 4), row by row, each ``'X'``,
  ``'O'`` or ``' '``, and is not changed. Any squares will do, even a board no game can
  reach.
* The 8 ways of an n x n board are made as the lesson makes ``WAYS``: starting from the
  board as it is, each way and then its flip, then a quarter turn clockwise, four times.
  A quarter turn puts the board's square in row ``n - 1 - c``, column ``r`` on the
  version's row ``r``, column ``c``; a flip, the square in row ``r``, column ``n - 1 - c``.
  For 3 x 3 they are the lesson's ``WAYS``, in its order.
* The answer is a tuple ``(name, way)``: ``name`` a ``str`` with one character for each
  square, ``way`` a ``list`` of the board's square numbers, one of its 8 ways.
* When several ways make the smallest version (a board that looks the same turned or
  flipped, like the empty board), the way is the first of them in that order.

Self-contained (it runs in the sandbox like a student's file).
"""


def ways_for(n):
    """The 8 ways to turn or flip an n x n board: a version's square i holds the board's way[i]."""
    turn = [(n - 1 - c) * n + r for r in range(n) for c in range(n)]  # a quarter turn clockwise
    flip = [r * n + (n - 1 - c) for r in range(n) for c in range(n)]  # left to right
    ways = []
    way = list(range(n * n))
    for _ in range(4):
        ways.append(way)
        ways.append([way[i] for i in flip])
        way = [way[i] for i in turn]
    return ways


def name(board):
    """The smallest of the board's 8 versions, as a string, and the way that makes it."""
    size = 4 if len(board) == 16 else 3
    best, best_way = None, None
    for way in ways_for(size):
        version = "".join(board[i] for i in way)
        if best is None or version < best:
            best, best_way = version, way
    return best, best_way


if __name__ == "__main__":
    print(name(["X", " ", " ", " ", "O", " ", " ", " ", " "]))
    print(name(["X"] + [" "] * 15))
