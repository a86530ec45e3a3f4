# caught-by: leaves_the_games_alone, never_changes_the_games
# Wrong: reads each game by popping its moves, which empties every game in the list.
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
COLOUR = {0: 0, 2: 0, 6: 0, 8: 0, 1: 1, 3: 1, 5: 1, 7: 1, 4: 4}


def opening_box(games):
    box = [4, 4, 0, 0, 4, 0, 0, 0, 0]
    for moves in games:
        bead = COLOUR[moves[0]]
        board = [' '] * 9
        mark = 'X'
        outcome = None
        while moves and outcome is None:
            board[moves.pop(0)] = mark
            if any(board[a] == board[b] == board[c] == mark for a, b, c in LINES):
                outcome = 'win' if mark == 'X' else 'loss'
            mark = 'O' if mark == 'X' else 'X'
        if outcome is None:
            outcome = 'draw' if ' ' not in board else 'loss'
        box[bead] = max(0, box[bead] + {'win': 3, 'draw': 1, 'loss': -1}[outcome])
    return box
