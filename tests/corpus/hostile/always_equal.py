# Hostile: gives back a list whose == always says yes (a cheat on the comparison).
class Anything(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


def after_game(beads, square, result):
    return Anything(beads)
