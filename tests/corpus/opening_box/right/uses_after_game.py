# Right: builds on after_game from the first challenge, and copies nothing it is given.
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8),
         (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6)]


def winner(board):
    for a, b, c in LINES:
        if board[a] != ' ' and board[a] == board[b] == board[c]:
            return board[a]
    return None


def after_game(beads, square, result):
    new = list(beads)
    if result == 'win':
        new[square] += 3
    elif result == 'draw':
        new[square] += 1
    else:
        new[square] = max(0, new[square] - 1)
    return new


def play_out(moves):
    board = [' '] * 9
    mark = 'X'
    for square in moves:
        board[square] = mark
        if winner(board) == 'X':
            return 'win'
        if winner(board) == 'O':
            return 'loss'
        mark = 'O' if mark == 'X' else 'X'
    if ' ' not in board:
        return 'draw'
    return 'loss'


def opening_box(games):
    beads = [4, 4, 0, 0, 4, 0, 0, 0, 0]
    for moves in games:
        if len(moves) == 0:
            continue
        first = moves[0]
        if first == 4:
            bead = 4
        elif first in (1, 3, 5, 7):
            bead = 1
        else:
            bead = 0
        beads = after_game(beads, bead, play_out(moves))
    return beads


print(opening_box([[8, 4, 0, 2, 6, 3, 7]]))
