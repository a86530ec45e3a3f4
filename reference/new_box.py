"""Reference solution for the challenge "A box of beads" (new_box).

``new_box(position)`` fills a new matchbox for a named position, where MENACE (X) is to
move: one colour for each *different* move, and Michie's number of beads of each colour.
Two moves are the same move when the positions they lead to have the same name (one is
the other turned or flipped), and then only the first of them, in square order, gets a
colour.

Decisions where the page is silent:

* ``position`` is a name (a string of 9 characters, as ``name`` gives it) of a position
  where X is to move and the game is not over, with 9, 7, 5 or 3 empty squares: the
  positions MENACE has boxes for. It is not changed.
* The box is a ``dict``: square (an ``int``) -> beads (an ``int``), with the squares in
  increasing order (``draw_bead`` lists them in that order, so the order decides which
  bead a seeded draw gives).
* Michie's beads, by empty squares: 9 -> 4, 7 -> 3, 5 -> 2, 3 -> 1.

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


START = {9: 4, 7: 3, 5: 2, 3: 1}  # beads of each colour, by empty squares


def new_box(position):
    """A new box for a named position: Michie's beads for each different move."""
    box = {}
    seen = []
    for s in range(9):
        if position[s] == " ":
            after = list(position)
            after[s] = "X"
            if name(after)[0] not in seen:
                seen.append(name(after)[0])
                box[s] = START[position.count(" ")]
    return box


if __name__ == "__main__":
    print(new_box(" " * 9))
    print(new_box("    O   X"))
