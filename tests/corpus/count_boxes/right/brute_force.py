# Right: searches all 549,946 boards without stopping at names already seen (slow but right).
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]


def versions(board):
    out = []
    b = list(board)
    for _ in range(4):
        out.append(''.join(b))
        out.append(''.join(b[i] for i in FLIP))
        b = [b[i] for i in TURN]
    return out


def won(board):
    return any(board[a] != ' ' and board[a] == board[b] == board[c] for a, b, c in LINES)


def count_boxes(mark):
    names = [set(), set(), set(), set(), set()]

    def play(board, turn):
        if won(board):
            return
        empty = board.count(' ')
        if empty == 0:
            return
        player = 'XO'[turn % 2]
        if player == mark and empty > 1:
            names[turn // 2].add(min(versions(board)))
        for s in range(9):
            if board[s] == ' ':
                board[s] = player
                play(board, turn + 1)
                board[s] = ' '

    play([' '] * 9, 0)
    return [len(n) for n in names if n]
