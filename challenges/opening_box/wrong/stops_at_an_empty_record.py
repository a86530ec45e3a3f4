# caught-by: a_game_with_no_moves_leaves_the_box_as_it_is
# Wrong: reads every game's first move, so a game with no moves (MENACE resigned at once) stops it with an IndexError.
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
BEAD = {0: 0, 2: 0, 6: 0, 8: 0, 1: 1, 3: 1, 5: 1, 7: 1, 4: 4}


def result(moves):
    board = [' '] * 9
    for turn, square in enumerate(moves):
        mark = 'X' if turn % 2 == 0 else 'O'
        board[square] = mark
        if any(board[a] == board[b] == board[c] == mark for a, b, c in LINES):
            return 'win' if mark == 'X' else 'loss'
    return 'draw' if ' ' not in board else 'loss'


def opening_box(games):
    beads = [4, 4, 0, 0, 4, 0, 0, 0, 0]
    for moves in games:
        bead = BEAD[moves[0]]
        beads[bead] = max(0, beads[bead] + {'win': 3, 'draw': 1, 'loss': -1}[result(moves)])
    return beads
