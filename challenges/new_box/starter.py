# The 8 ways to turn or flip a board. A version's square i holds the board's square
# way[i]; the first way leaves the board as it is.
TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]       # a quarter turn clockwise
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]       # left to right
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
        version = ''.join(board[i] for i in way)
        if best is None or version < best:
            best, best_way = version, way
    return best, best_way


START = {9: 4, 7: 3, 5: 2, 3: 1}     # beads of each color, by empty squares


def new_box(position):
    """A new box for the named position: a dict of square -> beads, one color per move.

    The box is for the player to move: X when the number of empty squares is odd, O when
    it is even. Go through the empty squares from 0 to 8; put that player's mark there in
    a copy of the position and name it; a square whose name is new gets a color, with
    Michie's beads for that player's own move (START has X's: 9, 7, 5, 3 empty squares;
    O's are 8 -> 4, 6 -> 3, 4 -> 2, 2 -> 1). Two squares whose names are the same are one
    move: the first gets the color. Each call starts afresh.

    The whole text: menace show new_box
    """
    box = {}
    return box


print(new_box(' ' * 9))
