"""Step 3: play, and learn.

MENACE (X) plays 300 games against the Perfect player and learns after each one.
Its boxes live in a dictionary under the names of their positions; a box is filled
the first time its position comes up. The results are printed 50 games at a time
and drawn as a picture, one square a game, 30 to a row.
"""

import random

from menace_course.lesson.noughts import name, perfect_move, random_move, winner
from menace_course.lesson.pixels import show_grid

START = {9: 4, 7: 3, 5: 2, 3: 1}  # beads of each color, by empty squares
REWARD = {"win": 3, "draw": 1, "loss": -1}  # beads added to each bead drawn


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
    """One game of MENACE (X) against opponent (O); then MENACE learns from it."""
    board = [" "] * 9
    drawn = []  # (position, bead) for each of its moves
    while True:
        if board.count(" ") == 1:  # a single square left: nothing to choose
            board[board.index(" ")] = "X"
            result = "win" if winner(board) else "draw"
            break
        position, way = name(board)
        if position not in boxes:
            boxes[position] = new_box(position)
        box = boxes[position]
        if sum(box.values()) == 0:  # no beads left: MENACE resigns,
            boxes[position] = new_box(position)  # and the box gets its beads back
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
    for position, bead in drawn:  # reward or punish every bead drawn
        box = boxes[position]
        box[bead] = max(0, box[bead] + REWARD[result])
    return result


def choose_move(board):
    """MENACE's move against you, drawn from its trained boxes (it learns nothing)."""
    if board.count(" ") == 1:
        return board.index(" ")
    position, way = name(board)
    box = boxes.get(position) or new_box(position)
    if sum(box.values()) == 0:
        box = new_box(position)
    return way[draw_bead(box)]


random.seed(1)
boxes = {}
results = [play_game(boxes, perfect_move) for game in range(300)]
for start in range(0, 300, 50):
    games = results[start : start + 50]
    print(
        f"Games {start + 1}–{start + 50}:",
        games.count("win"),
        "won,",
        games.count("draw"),
        "drawn,",
        games.count("loss"),
        "lost",
    )
print("Boxes opened:", len(boxes))
print("The first box:", boxes[" " * 9])
show_grid(
    [results[row : row + 30] for row in range(0, 300, 30)],
    {"win": "green", "draw": "lightgray", "loss": "firebrick"},
)
