# Hostile: calls os._exit(0) inside the function, stopping Python on every call.
import os


def after_game(beads, square, result):
    os._exit(0)
