# caught-by: example_1, win_on_a_side_square
# Wrong: gives back a tuple, not a list.
def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return tuple(new)
