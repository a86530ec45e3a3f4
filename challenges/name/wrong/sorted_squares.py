# caught-by: example_1, the_name_is_the_smallest_version, the_way_makes_the_name
"""Sorts the squares: the same for all 8 versions, but for many other boards too."""


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
    return "".join(sorted(board)), ways_for(n)[0]
