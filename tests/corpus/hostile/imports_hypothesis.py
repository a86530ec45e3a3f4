# Hostile: imports hypothesis (part of the grader, not of the lesson).
import hypothesis


def after_game(beads, square, result):
    return list(beads)
