# Hostile: calls os._exit while loading (no exception, Python just stops).
import os


def after_game(beads, square, result):
    return list(beads)


os._exit(0)
