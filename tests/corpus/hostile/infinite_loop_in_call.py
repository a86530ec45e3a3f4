# Hostile: loops forever in every call; the whole check must still take only a few seconds.
def after_game(beads, square, result):
    n = 0
    while True:
        n += 1
