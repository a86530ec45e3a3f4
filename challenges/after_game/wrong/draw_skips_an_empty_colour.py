# caught-by: draw_on_an_empty_colour
# Wrong: a draw on a colour with 0 beads gives it nothing (a draw adds 1 even at 0).
def after_game(beads, square, result):
    new = list(beads)
    if result == 'draw':
        if new[square] > 0:
            new[square] += 1
    else:
        new[square] = max(0, new[square] + {'win': 3, 'loss': -1}[result])
    return new
