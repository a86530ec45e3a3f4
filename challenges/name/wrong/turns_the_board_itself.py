# caught-by: leaves_the_board_alone
"""Turns the board itself around while looking for the name, and leaves it turned."""

TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]
WAYS = []
way = list(range(9))
for _ in range(4):
    WAYS.append(way)
    WAYS.append([way[i] for i in FLIP])
    way = [way[i] for i in TURN]


def name(board):
    best, best_way = None, None
    original = list(board)
    for way in WAYS:
        board[:] = [original[i] for i in way]
        version = "".join(board)
        if best is None or version < best:
            best, best_way = version, way
    return best, best_way
