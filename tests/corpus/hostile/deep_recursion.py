# Hostile: calls itself without end (RecursionError).
def after_game(beads, square, result):
    return after_game(beads, square, result)
