# Hostile (opening_box): gives back a list whose == always says yes, and changes the games.
class Anything(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False


def opening_box(games):
    games.clear()
    return Anything([4, 4, 0, 0, 4, 0, 0, 0, 0])
