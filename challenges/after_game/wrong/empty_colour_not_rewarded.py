# caught-by: win_on_an_empty_colour, draw_on_an_empty_colour
# Wrong: a win on a colour with 0 beads gives it nothing (the rule applies even at 0).
def after_game(beads, square, result):
    new = list(beads)
    if new[square] == 0:
        return new
    new[square] = max(0, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return new
