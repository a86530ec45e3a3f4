# Nothing: does nothing at all (earned 2/18 when "the games are unchanged" counted alone).
# most: 0
def opening_box(games):
    return None
