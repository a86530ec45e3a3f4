# Hostile: calls sys.exit while loading.
import sys


def after_game(beads, square, result):
    return list(beads)


sys.exit(0)
