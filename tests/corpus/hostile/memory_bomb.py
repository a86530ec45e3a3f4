# Hostile: grows a list until memory runs out, in every call.
def after_game(beads, square, result):
    hog = []
    while True:
        hog.append(bytearray(50 * 1024 * 1024))
