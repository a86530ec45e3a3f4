# Hostile: kills its parent process in every call.
import os
import signal


def after_game(beads, square, result):
    os.kill(os.getppid(), signal.SIGKILL)
    return list(beads)
