# caught-by: leaves_the_games_alone, never_changes_the_games
# Wrong: takes the games out of the list it was given (games.pop), leaving it empty.
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
COLOUR = {0: 0, 2: 0, 6: 0, 8: 0, 1: 1, 3: 1, 5: 1, 7: 1, 4: 4}
REWARD = {'win': 3, 'draw': 1, 'loss': -1}


def result(moves):
    board = [' '] * 9
    for turn, square in enumerate(moves):
        mark = 'XO'[turn % 2]
        board[square] = mark
        if any(board[a] == board[b] == board[c] == mark for a, b, c in LINES):
            return 'win' if mark == 'X' else 'loss'
    return 'draw' if ' ' not in board else 'loss'


def opening_box(games):
    box = [4, 4, 0, 0, 4, 0, 0, 0, 0]
    while games:
        moves = games.pop(0)
        bead = COLOUR[moves[0]]
        box[bead] = max(0, box[bead] + REWARD[result(moves)])
    return box
