# Hostile output: no after_game, but function names that markdown would turn bold (__init__) or into a link.
def __init__():
    pass


def _after_game_():
    pass


def www_evil_com():
    pass
