# Right: copies the games first (deep), then may change its own copy freely.
import copy

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def opening_box(games):
    games = copy.deepcopy(games)
    box = [4, 4, 0, 0, 4, 0, 0, 0, 0]
    while games:
        moves = games.pop(0)
        if not moves:  # MENACE resigned before its first move: no bead was drawn
            continue
        first = moves[0]
        bead = 4 if first == 4 else first % 2
        board = [None] * 9
        outcome = 'loss'
        for turn, square in enumerate(moves):
            board[square] = turn % 2
            if any(board[a] is not None and board[a] == board[b] == board[c] for a, b, c in LINES):
                outcome = 'win' if turn % 2 == 0 else 'loss'
                break
        else:
            if len(moves) == 9:
                outcome = 'draw'
        box[bead] = max(0, box[bead] + {'win': 3, 'draw': 1, 'loss': -1}[outcome])
    return box
