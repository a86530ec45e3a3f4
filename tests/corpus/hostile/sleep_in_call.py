# Hostile: sleeps for an hour in every call.
import time


def after_game(beads, square, result):
    time.sleep(3600)
    return list(beads)
