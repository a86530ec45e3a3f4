# Hostile: a syntax error (the def line has no colon). Nothing can run.
def after_game(beads, square, result)
    new = list(beads)
    return new
