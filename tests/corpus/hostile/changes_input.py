# Hostile: the right numbers, but changes the list it was given.
def after_game(beads, square, result):
    beads[square] = max(0, beads[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return beads
