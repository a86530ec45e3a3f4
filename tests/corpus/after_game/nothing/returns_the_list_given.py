# Nothing: gives back the list it was given, as the starter does.
# most: 0
def after_game(beads, square, result):
    return beads
