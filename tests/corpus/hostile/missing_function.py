# Hostile: defines helpers but no after_game at all.
REWARD = {'win': 3, 'draw': 1, 'loss': -1}


def reward(result):
    return REWARD[result]
