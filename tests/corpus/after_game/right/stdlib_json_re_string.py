# Right: copies the box through json, reads the result with re, checks it with string.
import json
import re
import string

ADDED = {'win': 3, 'draw': 1, 'loss': -1}


def after_game(beads, square, result):
    new = json.loads(json.dumps(beads))  # a copy, not the list it was given
    word = re.fullmatch(r'(win|draw|loss)', result)
    assert word and set(result) <= set(string.ascii_lowercase)
    new[square] = max(0, new[square] + ADDED[word.group(1)])
    return new
