"""Reference solution for the challenge "A box of beads" (new_box).

``new_box(position)`` fills a new matchbox for a named position, for the player to move
there, X (MENACE, as in the lesson) or O (a MENACE that plays second, with boxes of its
own, as the lesson's "going further" suggests): one colour for each *different* move,
and Michie's number of beads of each colour for that player's move.
Two moves are the same move when the positions they lead to have the same name (one is
the other turned or flipped), and then only the first of them, in square order, gets a
colour.

Decisions where the page is silent:

* ``position`` is a name (a string of 9 characters, as ``name`` gives it) of a position
  where the game is not over and the player to move has a choice: X with 9, 7, 5 or 3
  empty squares, O with 8, 6, 4 or 2. It is not changed.
* X moves first, so X is to move when the number of empty squares is odd, O when it is
  even; the player to move puts their own mark on the square of each move.
* The box is a ``dict``: square (an ``int``) -> beads (an ``int``), with the squares in
  increasing order (``draw_bead`` lists them in that order, so the order decides which
  bead a seeded draw gives).
* Michie's beads, by the player's own move: 4 for the 1st, 3 for the 2nd, 2 for the 3rd,
  1 for the 4th. For X (the lesson's) that is 9 -> 4, 7 -> 3, 5 -> 2, 3 -> 1 empty
  squares; for O, 8 -> 4, 6 -> 3, 4 -> 2, 2 -> 1.

Self-contained (it runs in the sandbox like a student's file): ``WAYS`` and ``name``
are the page's, given to students in the starter.
"""

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


START = {9: 4, 7: 3, 5: 2, 3: 1}  # beads of each colour, by empty squares (X to move)
START_O = {8: 4, 6: 3, 4: 2, 2: 1}  # the same for O, by its own move


def new_box(position):
    """A new box for a named position: Michie's beads for each different move of the player to move."""
    empty = position.count(" ")
    mark, beads = ("X", START[empty]) if empty % 2 == 1 else ("O", START_O[empty])
    box = {}
    seen = []
    for s in range(9):
        if position[s] == " ":
            after = list(position)
            after[s] = mark
            if name(after)[0] not in seen:
                seen.append(name(after)[0])
                box[s] = beads
    return box


if __name__ == "__main__":
    print(new_box(" " * 9))
    print(new_box("    O   X"))
    print(new_box("        X"))
