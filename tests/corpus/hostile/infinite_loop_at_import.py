# Hostile: loops forever while loading.
def after_game(beads, square, result):
    return list(beads)


while True:
    pass
