# caught-by: starts_from_michies_box_every_call
# Wrong: keeps the box at the top of the file, so a second call starts from the first call's box.
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
COLOUR = {0: 0, 2: 0, 6: 0, 8: 0, 1: 1, 3: 1, 5: 1, 7: 1, 4: 4}
REWARD = {'win': 3, 'draw': 1, 'loss': -1}
BOX = [4, 4, 0, 0, 4, 0, 0, 0, 0]


def result(moves):
    board = [' '] * 9
    for turn, square in enumerate(moves):
        mark = 'XO'[turn % 2]
        board[square] = mark
        if any(board[a] == board[b] == board[c] == mark for a, b, c in LINES):
            return 'win' if mark == 'X' else 'loss'
    return 'draw' if ' ' not in board else 'loss'


def opening_box(games):
    box = BOX
    for moves in games:
        bead = COLOUR[moves[0]]
        box[bead] = max(0, box[bead] + REWARD[result(moves)])
    return list(box)
