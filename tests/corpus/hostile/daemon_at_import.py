# Hostile: starts a detached process that should outlive the check, then answers right.
import os
import subprocess

try:
    subprocess.Popen(
        ['/bin/sh', '-c', 'sleep 600; : menace-hostile-marker-daemon'],
        start_new_session=True,
    )
except OSError:
    pass
try:
    import threading

    threading.Thread(target=lambda: os.system('sleep 600; : menace-hostile-marker-daemon')).start()
except (OSError, RuntimeError):
    pass


def after_game(beads, square, result):
    return None
