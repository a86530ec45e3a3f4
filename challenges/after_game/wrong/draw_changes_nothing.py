# caught-by: example_2, draw_on_the_last_square, draw_on_an_empty_colour
# Wrong: a draw leaves the box as it is (it should add 1 bead).
def after_game(beads, square, result):
    new = list(beads)
    if result == 'win':
        new[square] += 3
    elif result == 'loss':
        new[square] = max(0, new[square] - 1)
    return new
