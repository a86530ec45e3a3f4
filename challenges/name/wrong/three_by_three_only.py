# caught-by: example_2, example_3, a_four_by_four_board_has_its_own_eight_ways
"""The lesson's own name (Step 1), which knows only the 8 ways of a 3 x 3 board."""

# The 8 ways to turn or flip a board. Square i of a version holds the board's
# square way[i]; the first way changes nothing.
TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]  # a quarter turn clockwise
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]  # a mirror, left to right
WAYS = []
way = list(range(9))
for _ in range(4):
    WAYS.append(way)
    WAYS.append([way[i] for i in FLIP])
    way = [way[i] for i in TURN]


def name(board):
    """The board's smallest version, as a string, and the way that gives it."""
    best, best_way = None, None
    for way in WAYS:
        version = "".join(board[i] for i in way)
        if best is None or version < best:
            best, best_way = version, way
    return best, best_way
