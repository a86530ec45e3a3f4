"""Reference solution for the challenge "Back into the box" (after_game).

``after_game(beads, square, result)`` applies Michie's rule to one box: the colour
of the bead drawn gets 3 more beads after a win, 1 more after a draw and 1 fewer
after a loss, and a count never goes below 0.

Decisions where the page is silent:

* The list given is never changed; a new list of 9 ints is returned (every other
  count copied as it is).
* ``result`` must be exactly ``'win'``, ``'draw'`` or ``'loss'``; anything else is
  a ValueError.
* ``square`` is an index 0..8 into ``beads``. The rule is applied even if that
  colour holds 0 beads (a win still adds 3, a loss stays at 0).
"""

REWARD = {"win": 3, "draw": 1, "loss": -1}


def after_game(beads, square, result):
    """The box's 9 bead counts after the game, as a new list."""
    if result not in REWARD:
        raise ValueError(f"result must be 'win', 'draw' or 'loss', not {result!r}")
    new = list(beads)
    new[square] = max(0, new[square] + REWARD[result])
    return new


if __name__ == "__main__":
    print(after_game([4, 4, 0, 0, 4, 0, 0, 0, 0], 4, "win"))
