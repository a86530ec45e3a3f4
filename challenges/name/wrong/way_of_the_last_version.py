# caught-by: example_1, the_way_makes_the_name
"""Finds the right name but keeps the way of the last version looked at."""

TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]
WAYS = []
way = list(range(9))
for _ in range(4):
    WAYS.append(way)
    WAYS.append([way[i] for i in FLIP])
    way = [way[i] for i in TURN]


def name(board):
    best = None
    for way in WAYS:
        version = "".join(board[i] for i in way)
        if best is None or version < best:
            best = version
    return best, way
