# Hostile: asks for 64 GB at once while loading.
HOG = bytearray(64 * 1024 ** 3)


def after_game(beads, square, result):
    return list(beads)
