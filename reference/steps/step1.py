"""Step 1: how many boxes does MENACE need?

Every position gets one name, shared by its 8 turned and flipped versions: the
smallest of the 8 versions as a string. A search through every game collects the
names of the positions where X (MENACE) has to choose a move.
"""

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8),
         (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6)]


def winner(board):
    for a, b, c in LINES:
        if board[a] != " " and board[a] == board[b] == board[c]:
            return board[a]
    return None


# The 8 ways to turn or flip a board. Square i of a version holds the board's
# square way[i]; the first way changes nothing.
TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]  # a quarter turn clockwise
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]  # a mirror, left to right
WAYS = []
way = list(range(9))
for _ in range(4):
    WAYS.append(way)
    WAYS.append([way[i] for i in FLIP])
    way = [way[i] for i in TURN]


def name(board):
    """The board's smallest version, as a string, and the way that gives it."""
    best, best_way = None, None
    for way in WAYS:
        version = "".join(board[i] for i in way)
        if best is None or version < best:
            best, best_way = version, way
    return best, best_way


boxes = {1: set(), 3: set(), 5: set(), 7: set()}  # names, by MENACE's move
seen = set()


def visit(board):
    """Search every game from board on, noting the positions where X must choose."""
    if winner(board) or " " not in board:
        return
    key = name(board)[0]
    if key in seen:  # a turned copy of a position already searched
        return
    seen.add(key)
    marks = 9 - board.count(" ")
    me = "X" if marks % 2 == 0 else "O"
    if me == "X" and marks < 8:
        boxes[marks + 1].add(key)
    for i in range(9):
        if board[i] == " ":
            board[i] = me
            visit(board)
            board[i] = " "


visit([" "] * 9)
for move in boxes:
    print(f"Boxes for move {move}:", len(boxes[move]))
print("In all:", sum(len(names) for names in boxes.values()))
print("Positions searched:", len(seen))
