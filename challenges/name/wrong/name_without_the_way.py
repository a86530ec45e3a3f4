# caught-by: example_1, gives_back_a_name_and_a_way
"""Gives back the name alone, as the count_boxes starter does, without the way."""


def ways_for(n):
    """The 8 ways to turn or flip an n x n board, in the lesson's order."""
    turn = [(n - 1 - c) * n + r for r in range(n) for c in range(n)]
    flip = [r * n + (n - 1 - c) for r in range(n) for c in range(n)]
    ways = []
    way = list(range(n * n))
    for _ in range(4):
        ways.append(way)
        ways.append([way[i] for i in flip])
        way = [way[i] for i in turn]
    return ways


def name(board):
    n = 4 if len(board) == 16 else 3
    best, best_way = None, None
    for way in ways_for(n):
        version = "".join(board[i] for i in way)
        if best is None or version < best:
            best, best_way = version, way
    return best
