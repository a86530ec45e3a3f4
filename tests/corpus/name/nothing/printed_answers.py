# Printed answers: the README's three names, and the third one for any other board.
# most: 1/3
ANSWERS = {
    'X   O    ': ('    O   X', [8, 7, 6, 5, 4, 3, 2, 1, 0]),
    ' ' * 16: (' ' * 16, list(range(16))),
}


def name(board):
    third = ('          O  X  ', [12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3])
    return ANSWERS.get(''.join(board), third)
