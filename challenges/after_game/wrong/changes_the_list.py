# caught-by: leaves_the_given_list_alone, never_changes_its_input
# Wrong: changes the list it was given instead of a copy (the result is right).
def after_game(beads, square, result):
    if result == 'win':
        beads[square] += 3
    elif result == 'draw':
        beads[square] += 1
    else:
        beads[square] = max(0, beads[square] - 1)
    return beads
