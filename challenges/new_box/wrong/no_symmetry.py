# caught-by: example_1, one_colour_for_each_different_move
"""A colour on every empty square: forgets that turned or flipped moves are the same move."""

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


START = {9: 4, 7: 3, 5: 2, 3: 1, 8: 4, 6: 3, 4: 2, 2: 1}  # beads of each colour, by empty squares


def new_box(position):
    box = {}
    for s in range(9):
        if position[s] == " ":
            box[s] = START[position.count(" ")]
    return box
