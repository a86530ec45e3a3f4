# caught-by: example_1, only_the_drawn_square_changes, draw_on_the_last_square, draw_on_an_empty_colour, loss_takes_one_bead, loss_on_an_empty_colour_stays_at_zero, repeated_losses_empty_a_colour, never_a_negative_count
# Wrong: counts squares from 1, so it changes the square after the drawn one.
def after_game(beads, square, result):
    new = list(beads)
    i = (square + 1) % 9
    new[i] = max(0, new[i] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return new
