# The 8 ways to turn or flip a board. A version's square i holds the board's square
# way[i]; the first way leaves the board as it is.
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

    A version is ''.join(board[i] for i in way), for each way in WAYS. Give back a tuple
    (name, way); when several ways make the smallest version, the first of them in WAYS.
    Do not change the board.

    The whole text: menace show name
    """
    return ''.join(board), WAYS[0]


print(name(['X', ' ', ' ', ' ', 'O', ' ', ' ', ' ', ' ']))
