# Hostile: loads fast once, crashes the first call, then hangs every reload (it spots a restart by the age of its file), to spend far more than the time budget.
import os
import time

if time.time() - os.stat(__file__).st_mtime > 1.0:  # not the first load: the file is older now
    while True:
        time.sleep(1)


def after_game(beads, square, result):
    time.sleep(1.2)  # make sure every reload comes after the mark
    os._exit(3)
