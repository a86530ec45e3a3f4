# A student's answer to the challenge "Back into the box" (after_game).
# Try: menace check examples/after_game_student.py
#      menace check examples/after_game_buggy.py   (a common mistake, and the feedback it gets)


def after_game(beads, square, result):
    new_beads = list(beads)  # a copy: the list we were given stays as it was
    if result == "win":
        new_beads[square] += 3
    elif result == "draw":
        new_beads[square] += 1
    else:
        new_beads[square] = max(0, new_beads[square] - 1)
    return new_beads


if __name__ == "__main__":
    print(after_game([4, 4, 0, 0, 4, 0, 0, 0, 0], 4, "win"))
