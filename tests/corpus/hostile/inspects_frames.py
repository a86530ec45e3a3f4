# Hostile: looks through the caller's frames (and the garbage collector) for an 'expected' value.
import gc
import sys


def after_game(beads, square, result):
    depth = 1
    while True:
        try:
            frame = sys._getframe(depth)
        except ValueError:
            break
        for name in ('expected', 'expect', 'answer'):
            if name in frame.f_locals:
                return frame.f_locals[name]
        depth += 1
    for thing in gc.get_objects():
        if type(thing) is dict and 'expected' in thing:
            return thing['expected']
    return None
