# Right: one list comprehension; only the drawn square changes.
CHANGE = {'win': 3, 'draw': 1, 'loss': -1}


def after_game(beads, square, result):
    return [max(0, n + CHANGE[result]) if i == square else n for i, n in enumerate(beads)]
