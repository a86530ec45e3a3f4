# caught-by: loss_on_an_empty_colour_stays_at_zero, repeated_losses_empty_a_colour
# Wrong: never lets a colour go below 1 (the floor is 0).
def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(1, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return new
