# Right: a slice copy and an if/elif chain, with a test under __main__.
def after_game(beads, square, result):
    new_beads = beads[:]
    if result == 'win':
        new_beads[square] = new_beads[square] + 3
    elif result == 'draw':
        new_beads[square] = new_beads[square] + 1
    elif result == 'loss':
        if new_beads[square] > 0:
            new_beads[square] = new_beads[square] - 1
    return new_beads


if __name__ == '__main__':
    print(after_game([4, 4, 0, 0, 4, 0, 0, 0, 0], 4, 'win'))
