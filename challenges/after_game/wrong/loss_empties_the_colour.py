# caught-by: example_3, loss_takes_one_bead
# Wrong: a loss takes away every bead of the colour, not just one.
def after_game(beads, square, result):
    new = list(beads)
    if result == 'win':
        new[square] += 3
    elif result == 'draw':
        new[square] += 1
    else:
        new[square] = 0
    return new
