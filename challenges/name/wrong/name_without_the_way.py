# caught-by: example_1, gives_back_a_name_and_a_way
"""Gives back the name alone, as the count_boxes starter does, without the way."""

TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]
WAYS = []
way = list(range(9))
for _ in range(4):
    WAYS.append(way)
    WAYS.append([way[i] for i in FLIP])
    way = [way[i] for i in TURN]


def name(board):
    return min("".join(board[i] for i in way) for way in WAYS)
