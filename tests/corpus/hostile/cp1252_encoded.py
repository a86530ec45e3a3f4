# Hostile: saved in Windows-1252 (café, – an en dash), otherwise right: passes with a notice.
# Récompense: +3, +1, –1.
REWARD = {"win": 3, "draw": 1, "loss": -1}  # « résultat »


def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + REWARD[result])
    return new
