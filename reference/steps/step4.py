"""Step 4: against a random player.

The same MENACE as in Step 3, now learning against the Random player for 1,000
games. The results are printed 200 games at a time and drawn 50 games to a row.
"""

import random

from menace_course.lesson.noughts import name, random_move, winner
from menace_course.lesson.pixels import show_grid

START = {9: 4, 7: 3, 5: 2, 3: 1}
REWARD = {"win": 3, "draw": 1, "loss": -1}


def new_box(position):
    box = {}
    seen = []
    for s in range(9):
        if position[s] == " ":
            after = list(position)
            after[s] = "X"
            if name(after)[0] not in seen:
                seen.append(name(after)[0])
                box[s] = START[position.count(" ")]
    return box


def draw_bead(box):
    squares = list(box)
    return random.choices(squares, weights=[box[s] for s in squares])[0]


def play_game(boxes, opponent):
    board = [" "] * 9
    drawn = []
    while True:
        if board.count(" ") == 1:
            board[board.index(" ")] = "X"
            result = "win" if winner(board) else "draw"
            break
        position, way = name(board)
        if position not in boxes:
            boxes[position] = new_box(position)
        box = boxes[position]
        if sum(box.values()) == 0:
            boxes[position] = new_box(position)
            result = "loss"
            break
        bead = draw_bead(box)
        drawn.append((position, bead))
        board[way[bead]] = "X"
        if winner(board):
            result = "win"
            break
        board[opponent(board)] = "O"
        if winner(board):
            result = "loss"
            break
    for position, bead in drawn:
        box = boxes[position]
        box[bead] = max(0, box[bead] + REWARD[result])
    return result


random.seed(1)
boxes = {}
results = [play_game(boxes, random_move) for game in range(1000)]
for start in range(0, 1000, 200):
    games = results[start : start + 200]
    print(
        f"Games {start + 1}–{start + 200}:",
        games.count("win"),
        "won,",
        games.count("draw"),
        "drawn,",
        games.count("loss"),
        "lost",
    )
print("Boxes opened:", len(boxes), "of 304")
show_grid(
    [results[row : row + 50] for row in range(0, 1000, 50)],
    {"win": "green", "draw": "lightgray", "loss": "firebrick"},
)
