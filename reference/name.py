"""Reference solution for the challenge "One name for eight versions" (name).

``name(board)`` gives every position one name, the same for all 8 of its turned and
flipped versions: the smallest of the 8 versions as a string of 9 characters (Python
compares strings letter by letter, and ``' ' < 'O' < 'X'``), together with the way that
makes it, so that a move on the name's square ``s`` can be played on the board's square
``way[s]``.

Decisions where the page is silent:

* The answer is a tuple ``(name, way)``: ``name`` a ``str`` of 9 characters, ``way`` a
  ``list`` of 9 square numbers, one of the 8 lists in ``WAYS``.
* When several ways make the smallest version (a board that looks the same turned or
  flipped, like the empty board), the way is the first of them in ``WAYS``' order.
* ``board`` is a list of 9 one-character strings (``'X'``, ``'O'`` or ``' '``) and is not
  changed. Any 9 such squares will do, even a board no game can reach.

Self-contained (it runs in the sandbox like a student's file): ``TURN``, ``FLIP`` and
``WAYS`` are the page's, given to students in the starter.
"""

# The 8 ways to turn or flip a board. A version's square i holds the board's square
# way[i]; the first way leaves the board as it is.
TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]  # a quarter turn clockwise
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]  # left to right
WAYS = []
way = list(range(9))
for _ in range(4):
    WAYS.append(way)
    WAYS.append([way[i] for i in FLIP])
    way = [way[i] for i in TURN]


def name(board):
    """The smallest of the board's 8 versions, as a string, and the way that makes it."""
    best, best_way = None, None
    for way in WAYS:
        version = "".join(board[i] for i in way)
        if best is None or version < best:
            best, best_way = version, way
    return best, best_way


if __name__ == "__main__":
    print(name(["X", " ", " ", " ", "O", " ", " ", " ", " "]))
