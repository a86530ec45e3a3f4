# Hostile: searches the disk for the hidden tests and the reference, and gives back what it found.
import os

WANTED = ('hidden_tests', 'test_after_game.py', 'reference', 'menace_course', 'challenge.toml')
FOUND = []
for top in ('/', '/box', '/tmp', '/root', '/home', '/work', '/opt', '/srv', '/var'):
    for folder, subfolders, files in os.walk(top):
        if folder.startswith(('/usr', '/proc', '/sys', '/dev')):
            subfolders[:] = []
            continue
        for entry in subfolders + files:
            if entry in WANTED:
                FOUND.append(os.path.join(folder, entry))
        if len(FOUND) > 20:
            break
for path in ('/work/main/hidden_tests', '/work/main/reference/after_game.py', '../hidden_tests'):
    if os.path.exists(path):
        FOUND.append(path)


def after_game(beads, square, result):
    return sorted(set(FOUND))
