# Hostile: writes forged ready and reply messages whose numbers are Infinity, NaN and 5,000-digit integers to every file descriptor, to make the grader raise.
import os

BAD = [
    b'{"ready": false, "error": {"type": "X", "message": "", "frames": [{"line": Infinity}]}}\n',
    b'{"ready": false, "error": {"type": "X", "message": "", "frames": [{"line": NaN, "repeats": -Infinity}]}}\n',
    b'{"ready": true, "functions": {"after_game": {"params": [], "min": ' + b'9' * 5000 + b', "max": 3}}}\n',
    b'{"id": 1, "ok": false, "error": {"type": "X", "frames": [{"line": 1e999}]}}\n',
    b'{"id": 1, "ok": true, "result": [Infinity], "args_after": [1, 2, 3]}\n',
]


def shout():
    for line in BAD:
        for fd in range(3, 64):
            try:
                os.write(fd, line)
            except OSError:
                pass


shout()


def after_game(beads, square, result):
    shout()
    return list(beads)
