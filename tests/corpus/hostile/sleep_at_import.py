# Hostile: sleeps for an hour while loading.
import time

time.sleep(3600)


def after_game(beads, square, result):
    return list(beads)
