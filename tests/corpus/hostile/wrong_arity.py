# Hostile: after_game takes two arguments instead of three.
def after_game(beads, square):
    new = list(beads)
    new[square] += 3
    return new
