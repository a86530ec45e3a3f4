# Hostile output: lone surrogates (text that no UTF-8 file can hold) in what it prints, raises and returns.
class Odd(list):
    def __repr__(self):
        return "\udcff odd"


def after_game(beads, square, result):
    print("\ud800 printed")
    if result == "win":
        raise ValueError("\udfff raised")
    return Odd(beads)
