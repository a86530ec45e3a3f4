# caught-by: example_1, win_on_a_side_square
# Wrong: prints the new list instead of returning it (gives back None).
def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    print(new)
