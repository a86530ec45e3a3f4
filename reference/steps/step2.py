"""Step 2: a box of beads.

A box is a dictionary from a square to its number of beads: one color for each
different move from the position, with Michie's number of beads. Drawing a bead is a
random choice in which a color with more beads is more likely.
"""

import random

from menace_course.lesson.noughts import name

START = {9: 4, 7: 3, 5: 2, 3: 1}  # beads of each color, by empty squares


def new_box(position):
    """A fresh box for a named position: Michie's beads for each different move."""
    box = {}
    seen = []
    for s in range(9):
        if position[s] == " ":
            after = list(position)
            after[s] = "X"
            if name(after)[0] not in seen:  # a new move, not a turned copy of one
                seen.append(name(after)[0])
                box[s] = START[position.count(" ")]
    return box


def draw_bead(box):
    """A square drawn from the box at random: the more beads, the likelier."""
    squares = list(box)
    return random.choices(squares, weights=[box[s] for s in squares])[0]


print("The first box:", new_box(" " * 9))

board = ['X', ' ', ' ',
         ' ', 'O', ' ',
         ' ', ' ', ' ']
position, way = name(board)
print("X in a corner, O in the center is named", repr(position))
print("Its box:", new_box(position))

random.seed(1)
first = new_box(" " * 9)
print("Ten beads from the first box:", [draw_bead(first) for _ in range(10)])
