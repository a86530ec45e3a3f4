# caught-by: example_1, only_the_drawn_square_changes
# Wrong: counts squares from 1, so it changes the square after the drawn one.
def after_game(beads, square, result):
    new = list(beads)
    i = (square + 1) % 9
    new[i] = max(0, new[i] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return new
