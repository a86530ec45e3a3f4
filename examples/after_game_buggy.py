# A common first try at "Back into the box": it changes the list it was given,
# and a loss can take a colour below zero.


def after_game(beads, square, result):
    if result == "win":
        beads[square] += 3
    elif result == "draw":
        beads[square] += 1
    else:
        beads[square] -= 1
    return beads
