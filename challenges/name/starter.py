# The 8 ways to turn or flip a 3 x 3 board, as in the lesson. A version's square i holds
# the board's square way[i]; the first way leaves the board as it is. A 4 x 4 board needs
# its own 8 ways, made the same way from its own quarter turn and flip.
TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]       # a quarter turn clockwise
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]       # left to right
WAYS = []
way = list(range(9))
for _ in range(4):
    WAYS.append(way)
    WAYS.append([way[i] for i in FLIP])
    way = [way[i] for i in TURN]


def name(board):
    """The smallest of the board's 8 versions, as a string, and the way that makes it.

    board is 3 x 3 (9 squares) or 4 x 4 (16). A version is ''.join(board[i] for i in way),
    for each of the board's 8 ways. Give back a tuple (name, way); when several ways make
    the smallest version, the first of them. Do not change the board.

    The whole text: menace show name
    """
    return ''.join(board), WAYS[0]


print(name(['X', ' ', ' ', ' ', 'O', ' ', ' ', ' ', ' ']))
print(name([' ', 'X', ' ', ' ', ' ', ' ', 'O', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ']))
