# caught-by: example_1, the_name_is_the_smallest_version
"""Sorts the squares: the same for all 8 versions, but for many other boards too."""

TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]
WAYS = []
way = list(range(9))
for _ in range(4):
    WAYS.append(way)
    WAYS.append([way[i] for i in FLIP])
    way = [way[i] for i in TURN]


def name(board):
    return "".join(sorted(board)), WAYS[0]
