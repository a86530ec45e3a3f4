# Hostile: writes malformed protocol messages to every open file descriptor while loading.
import os

LINES = [
    b'{"ready": true, "functions": {"after_game": {"min": "three", "max": [], "params": 7}}}\n',
    b'{"ready": true, "functions": {"after_game": 5}}\n',
    b'{"ready": true, "functions": []}\n',
    b'[' * 100000 + b'\n',
    b'{"id": 1, "ok": true, "result": {"$": "bigint", "digits": "many"}, "args_after": []}\n',
    b'\xff\xfe not json at all\n',
]
for line in LINES:
    for fd in range(3, 1024):
        try:
            os.write(fd, line)
        except OSError:
            pass


def after_game(beads, square, result):
    return None
