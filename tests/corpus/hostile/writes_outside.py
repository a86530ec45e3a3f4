# Hostile: tries to write files outside its sandbox, at load and in the call, and reports what worked.
import os

REPO = '/work/main'  # the test rewrites this to the course folder it checks with
TARGETS = [
    '/tmp/menace-escape-marker',
    os.path.join(REPO, 'menace-escape-marker'),
    os.path.join(REPO, 'challenges', 'after_game', 'starter.py'),
    '/box/submission.py',
    '/box/harness.py',
    os.path.expanduser('~/menace-escape-marker'),
    'menace-escape-marker',
]


def attempt(path):
    try:
        with open(path, 'a') as handle:
            handle.write('menace-hostile-marker-write\n')
        return f'{path} written'
    except OSError as error:
        return f'{path} {type(error).__name__}'


AT_LOAD = [attempt(path) for path in TARGETS]


def after_game(beads, square, result):
    return AT_LOAD + [attempt(path) for path in TARGETS]
