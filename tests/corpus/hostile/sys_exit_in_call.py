# Hostile: calls sys.exit(0) inside the function.
import sys


def after_game(beads, square, result):
    sys.exit(0)
