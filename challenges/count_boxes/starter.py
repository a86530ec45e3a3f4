LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8),
         (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6)]


def winner(board):
    for a, b, c in LINES:
        if board[a] != ' ' and board[a] == board[b] == board[c]:
            return board[a]
    return None


TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]
WAYS = []
way = list(range(9))
for _ in range(4):
    WAYS.append(way)
    WAYS.append([way[i] for i in FLIP])
    way = [way[i] for i in TURN]


def name(board):
    return min(''.join(board[i] for i in way) for way in WAYS)


def count_boxes(mark):
    """How many boxes the player mark ('X' or 'O') needs before each of its moves, as a list.

    Search every game from the empty board (X first, stopping at a line of three), and
    count, for each of mark's moves, the names of the positions it sees before moving:
    one box for all 8 versions of a position, none for a finished game, none for a move
    with one square left. For 'X' that is Step 1's [1, 12, 108, 183].

    The whole text: menace show count_boxes
    """
    return []


print(count_boxes('X'))
