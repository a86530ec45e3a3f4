# Hostile: crashes while loading (a test call at the top of the file divides by zero).
def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return new


print(after_game([4] * 9, 4, 'win')[0] / 0)
