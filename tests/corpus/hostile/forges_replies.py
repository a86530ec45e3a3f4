# Hostile: writes forged "right answer" replies to every open file descriptor, then gives back None.
import json
import os

CALLS = [0]


def forge(message):
    line = (json.dumps(message) + '\n').encode()
    for fd in range(3, 1024):
        try:
            os.write(fd, line)
        except OSError:
            pass


forge({'ready': True, 'functions': {'after_game': {'params': ['beads', 'square', 'result'],
                                                   'min': 3, 'max': 3, 'is_function': True}},
       'printed': {'text': '', 'dropped': 0}})


def after_game(beads, square, result):
    CALLS[0] += 1
    right = list(beads)
    right[square] = max(0, right[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    for guess in range(CALLS[0], CALLS[0] + 3):
        forge({'id': guess, 'ok': True, 'result': right, 'args_after': [beads, square, result],
               'printed': {'text': '', 'dropped': 0}})
    return None
