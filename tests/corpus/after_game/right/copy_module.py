# Right: copy.copy and a loop over the squares; prints at load, which is allowed.
import copy


def after_game(beads, square, result):
    new = copy.copy(beads)
    for i in range(len(new)):
        if i != square:
            continue
        if result == 'loss':
            new[i] = new[i] - 1 if new[i] > 0 else 0
        else:
            new[i] += 3 if result == 'win' else 1
    return new


print(after_game([4, 4, 0, 0, 4, 0, 0, 0, 0], 4, 'win'))
