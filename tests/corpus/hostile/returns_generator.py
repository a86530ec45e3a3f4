# Hostile: gives back a generator of the right numbers instead of a list.
def after_game(beads, square, result):
    change = {'win': 3, 'draw': 1, 'loss': -1}[result]
    return (max(0, n + change) if i == square else n for i, n in enumerate(beads))
