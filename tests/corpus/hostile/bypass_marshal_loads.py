# Hostile: replaces marshal.loads, which the harness calls through the module while its guard is off, and from there rewrites the harness's encode (the arguments after a call, as they were before) and empties its list of refused attempts; its after_game changes its input.
import sys

DELTA = {'win': 3, 'draw': 1, 'loss': -1}
SAVED = {}  # id(beads) -> the list as it was before this call changed it


def _name(*parts):
    return ''.join(parts)  # spelled in pieces, so that no scan of the source sees the names


def _forged(real):
    def encode(value, *rest):
        return real(SAVED.pop(id(value), value), *rest)  # the arguments "after" the call: as before

    return encode


def take_over():
    """With the guard off: rewrite the harness's encode and empty its refused attempts."""
    frame = getattr(sys, _name('_get', 'frame'))(0)
    found = None
    while frame is not None:
        names = getattr(frame, _name('f_', 'locals'))
        if 'answer' in names and 'send' in names:
            found = names
            break
        frame = getattr(frame, _name('f_', 'back'))
    if found is None:
        return False
    for function in (found['answer'], found['send']):
        code = getattr(function, _name('__', 'code__'))
        cells = getattr(function, _name('__', 'clos', 'ure__')) or ()
        for name, cell in zip(code.co_freevars, cells):
            if name == 'encode' and getattr(cell.cell_contents, '__name__', '') != 'forged':
                cell.cell_contents = _forged(cell.cell_contents)
                cell.cell_contents.__name__ = 'forged'
            elif name == 'attempts':
                cell.cell_contents.clear()
    return True


def changes_its_input(beads, square, result):
    SAVED[id(beads)] = list(beads)
    beads[square] = max(0, beads[square] + DELTA[result])  # changes its input
    return list(beads)


_marshal = __import__('mar' + 'shal')
_real_loads = _marshal.loads


def _loads(data, *rest):
    take_over()
    return _real_loads(data, *rest)


setattr(_marshal, 'loads', _loads)


def after_game(beads, square, result):
    return changes_its_input(beads, square, result)
