"""Reference solution for the challenge "The first box after the tournament" (opening_box).

``opening_box(games)`` starts from Michie's first box, 4 beads each for the corner
(square 0), the side (square 1) and the centre (square 4), and learns from each
game in turn: the colour of the game's first move gets 3 more beads after a win,
1 more after a draw and 1 fewer after a loss, never going below 0.

Decisions where the page is silent:

* The first move's square is read as a colour: any corner (0, 2, 6, 8) is bead 0,
  any side (1, 3, 5, 7) is bead 1, the centre is bead 4.
* The result is MENACE's (X's), read from the record replayed on an empty board,
  X first: a line of three for X is a win, for O a loss; a full board with no line
  is a draw; a record that stops with no line and squares still empty means MENACE
  resigned, a loss. Records are taken to be real games; should one go on after a
  line of three, the first line made decides.
* A game whose record is empty is skipped: no bead was drawn from the first box,
  so there is nothing to put back or keep out.
* The list of games is not changed; a new list of 9 ints is returned. With no
  games it is Michie's first box, ``[4, 4, 0, 0, 4, 0, 0, 0, 0]``.
"""

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
REWARD = {"win": 3, "draw": 1, "loss": -1}
BEAD = {0: 0, 2: 0, 6: 0, 8: 0, 1: 1, 3: 1, 5: 1, 7: 1, 4: 4}  # square -> colour


def result(moves):
    """MENACE's result in a game recorded as the squares played, X first."""
    board = [" "] * 9
    for turn, square in enumerate(moves):
        mark = "X" if turn % 2 == 0 else "O"
        board[square] = mark
        if any(board[a] == board[b] == board[c] == mark for a, b, c in LINES):
            return "win" if mark == "X" else "loss"
    return "draw" if " " not in board else "loss"


def opening_box(games):
    """The first box's 9 bead counts after MENACE learns from every game, in order."""
    beads = [4, 4, 0, 0, 4, 0, 0, 0, 0]
    for moves in games:
        if not moves:
            continue
        bead = BEAD[moves[0]]
        beads[bead] = max(0, beads[bead] + REWARD[result(moves)])
    return beads


if __name__ == "__main__":
    print(opening_box([[8, 4, 0, 2, 6, 3, 7]]))
