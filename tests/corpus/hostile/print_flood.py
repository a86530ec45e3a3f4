# Hostile: prints without end in every call (its output must be capped, not passed on).
def after_game(beads, square, result):
    while True:
        print('✓ after_game passes all checks ' * 100)
