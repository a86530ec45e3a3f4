# Hostile: writes 64 MB straight to fd 1 and fd 2 at load and in every call, then gives back None.
import os

CHUNK = b'FLOOD-menace ' * 5000


def flood():
    for _ in range(1000):
        for fd in (1, 2):
            try:
                os.write(fd, CHUNK)
            except OSError:
                pass


flood()


def after_game(beads, square, result):
    flood()
    return None
