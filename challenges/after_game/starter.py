def after_game(beads, square, result):
    """The box's 9 bead counts after a game, as a new list.

    beads is the box: 9 whole numbers, the beads of each square's color. square (0 to 8)
    is the square of the bead drawn from it; result is 'win', 'draw' or 'loss'. The drawn
    square gets 3 more beads after a win, 1 more after a draw and 1 fewer after a loss,
    never fewer than 0, even when it holds none; every other square keeps its count.
    Do not change beads: change a copy, and give that back.

    The whole text: menace show after_game
    """
    return beads


print(after_game([4, 4, 0, 0, 4, 0, 0, 0, 0], 4, 'win'))
