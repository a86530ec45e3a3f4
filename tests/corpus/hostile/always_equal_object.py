# Hostile: gives back a plain object whose == always says yes, and whose repr looks right.
class Yes:
    def __eq__(self, other):
        return True

    def __repr__(self):
        return '[4, 4, 0, 0, 7, 0, 0, 0, 0]'


def after_game(beads, square, result):
    return Yes()
