# Right: keeps each player's squares as a set and checks the lines after every move.
WINS = [{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}]


def how_it_ended(moves):
    mine, theirs = set(), set()
    for i, square in enumerate(moves):
        if i % 2 == 0:
            mine.add(square)
            if any(line <= mine for line in WINS):
                return 3
        else:
            theirs.add(square)
            if any(line <= theirs for line in WINS):
                return -1
    return 1 if len(moves) == 9 else -1


def opening_box(games):
    counts = {'corner': 4, 'side': 4, 'centre': 4}
    for game in games:
        if not game:
            continue
        first = game[0]
        kind = 'centre' if first == 4 else ('side' if first % 2 == 1 else 'corner')
        counts[kind] = max(0, counts[kind] + how_it_ended(game))
    return [counts['corner'], counts['side'], 0, 0, counts['centre'], 0, 0, 0, 0]
