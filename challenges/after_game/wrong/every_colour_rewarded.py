# caught-by: only_the_drawn_square_changes, win_on_an_empty_colour, draw_on_an_empty_colour
# Wrong: rewards every colour in the box, not only the drawn square.
def after_game(beads, square, result):
    change = {'win': 3, 'draw': 1, 'loss': -1}[result]
    return [max(0, b + change) if b > 0 else b for b in beads]
