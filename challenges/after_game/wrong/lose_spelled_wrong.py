# caught-by: example_3, loss_takes_one_bead
# Wrong: compares with 'lose' instead of 'loss', so a loss changes nothing.
def after_game(beads, square, result):
    new = list(beads)
    if result == 'win':
        new[square] += 3
    elif result == 'draw':
        new[square] += 1
    elif result == 'lose':
        new[square] = max(0, new[square] - 1)
    return new
