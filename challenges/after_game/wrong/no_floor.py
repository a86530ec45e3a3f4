# caught-by: loss_on_an_empty_colour_stays_at_zero, never_a_negative_count
# Wrong: a loss can take a count below 0 (no floor at zero).
def after_game(beads, square, result):
    new = list(beads)
    if result == 'win':
        new[square] += 3
    elif result == 'draw':
        new[square] += 1
    else:
        new[square] -= 1
    return new
