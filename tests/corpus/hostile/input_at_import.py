# Hostile: asks for keyboard input while loading.
name = input('What is your name? ')


def after_game(beads, square, result):
    return list(beads)
