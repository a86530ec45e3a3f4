# Right: counts with math, fractions, decimal and statistics, copies with copy, walks with itertools, and draws with its own random.Random.
import copy
import itertools
import math
import random
import statistics
from collections import Counter, OrderedDict, defaultdict, deque
from decimal import Decimal
from fractions import Fraction

ADDED = {'win': Fraction(3), 'draw': Fraction(1), 'loss': Fraction(-1)}


def after_game(beads, square, result):
    new = copy.deepcopy(beads)
    count = Fraction(new[square]) + ADDED[result]
    count = int(Decimal(math.floor(max(count, 0))))
    mean = statistics.mean([count, count])  # the same number, through statistics
    seen = Counter(itertools.repeat(square, 1)) + Counter(defaultdict(int))
    order = OrderedDict(zip(range(len(new)), deque(new)))
    random.Random(square).shuffle(list(order))  # a private generator: the answer does not depend on it
    new[next(iter(seen))] = int(mean)
    return new
