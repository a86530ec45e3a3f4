# caught-by: example_1, every_corner_is_the_corner_bead
# Wrong: gives back a tuple, not a list.
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
CORNERS = [0, 2, 6, 8]
SIDES = [1, 3, 5, 7]


def colour(square):
    if square in CORNERS:
        return 0
    if square in SIDES:
        return 1
    return 4


def result(moves):
    board = [' '] * 9
    for turn in range(len(moves)):
        mark = 'X' if turn % 2 == 0 else 'O'
        board[moves[turn]] = mark
        for a, b, c in LINES:
            if board[a] == board[b] == board[c] == mark:
                if mark == 'X':
                    return 'win'
                return 'loss'
    if ' ' in board:
        return 'loss'
    return 'draw'


def opening_box(games):
    box = [4, 4, 0, 0, 4, 0, 0, 0, 0]
    for moves in games:
        bead = colour(moves[0])
        outcome = result(moves)
        if outcome == 'win':
            box[bead] += 3
        elif outcome == 'draw':
            box[bead] += 1
        else:
            box[bead] = max(0, box[bead] - 1)
    return tuple(box)
