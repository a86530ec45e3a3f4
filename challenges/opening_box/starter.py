def opening_box(games):
    """The first box's 9 bead counts after MENACE learns from every game, in order.

    Start from Michie's box [4, 4, 0, 0, 4, 0, 0, 0, 0]. Each game is the squares
    played, X first. Its first move's color (any corner: position 0, any side: 1,
    the center: 4) gets 3 more beads after a win, 1 more after a draw, 1 fewer after a
    loss, never fewer than 0, game by game. A line for X is a win (on the 9th move too),
    a line for O a loss, a full board without a line a draw, a record that stops early
    a loss (MENACE resigned); a game with no moves changes nothing. Do not change games.

    The whole text: menace show opening_box
    """
    return [4, 4, 0, 0, 4, 0, 0, 0, 0]


print(opening_box([[8, 4, 0, 2, 6, 3, 7]]))
