# caught-by: example_1, one_box_before_each_players_first_move
# Wrong: counts the positions after the player's move instead of before it.
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
    boxes = {}
    seen = set()

    def visit(board):
        if winner(board) or ' ' not in board:
            return
        key = name(board)
        if key in seen:
            return
        seen.add(key)
        marks = 9 - board.count(' ')
        me = 'X' if marks % 2 == 0 else 'O'
        if me != mark and marks > 0:
            boxes.setdefault(marks, set()).add(key)
        for i in range(9):
            if board[i] == ' ':
                board[i] = me
                visit(board)
                board[i] = ' '

    visit([' '] * 9)
    return [len(boxes[m]) for m in sorted(boxes)]
