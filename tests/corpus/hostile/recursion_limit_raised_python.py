# Hostile: raises the recursion limit to 10**6 and recurses in plain Python without end.
import sys

sys.setrecursionlimit(10 ** 6)


def after_game(beads, square, result):
    return after_game(beads, square + 1, result)
