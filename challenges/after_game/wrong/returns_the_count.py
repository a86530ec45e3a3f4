# caught-by: example_1, win_on_a_side_square
# Wrong: gives back only the drawn square's new count, not the whole list.
def after_game(beads, square, result):
    return max(0, beads[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
