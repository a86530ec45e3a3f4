# Hostile: raises the recursion limit to 10**6 and recurses through C code, which stops Python itself.
import sys

sys.setrecursionlimit(10 ** 6)


def after_game(beads, square, result):
    return list(map(lambda _: after_game(beads, square, result), [0]))
