# caught-by: example_1, gives_back_a_dict_of_squares_and_beads
"""Gives back 9 bead counts in a list, as after_game takes them, instead of a dict."""

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
    box = [0] * 9
    seen = []
    for s in range(9):
        if position[s] == " ":
            after = list(position)
            after[s] = "X" if position.count(" ") % 2 == 1 else "O"
            if name(after)[0] not in seen:
                seen.append(name(after)[0])
                box[s] = START[position.count(" ")]
    return box
