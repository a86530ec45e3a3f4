# Hostile: gives back an integer with 100,001 digits.
def after_game(beads, square, result):
    return 10 ** 100000
