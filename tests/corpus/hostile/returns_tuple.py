# Hostile: gives back a tuple with the right numbers.
def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return tuple(new)
