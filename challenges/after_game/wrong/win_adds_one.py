# caught-by: example_1, win_on_a_side_square
# Wrong: a win adds 1 bead instead of 3.
def after_game(beads, square, result):
    new = list(beads)
    if result == 'win' or result == 'draw':
        new[square] += 1
    else:
        new[square] = max(0, new[square] - 1)
    return new
