# Nothing: does nothing at all (earned 2/15 when "the list is unchanged" counted alone).
# most: 0
def after_game(beads, square, result):
    return None
