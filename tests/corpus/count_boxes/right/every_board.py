# Right: looks at all 3**9 boards at once instead of searching games.
from itertools import product

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]


def key(board):
    best = None
    for flip in (False, True):
        b = [board[i] for i in FLIP] if flip else list(board)
        for _ in range(4):
            text = ''.join(b)
            if best is None or text < best:
                best = text
            b = [b[i] for i in TURN]
    return best


def count_boxes(mark):
    by_move = {}
    for board in product(' XO', repeat=9):
        x, o = board.count('X'), board.count('O')
        if mark == 'X' and x != o or mark == 'O' and x != o + 1:
            continue
        if board.count(' ') < 2:
            continue
        if any(board[a] != ' ' and board[a] == board[b] == board[c] for a, b, c in LINES):
            continue
        by_move.setdefault(x + o, set()).add(key(board))
    return [len(by_move[n]) for n in sorted(by_move)]
