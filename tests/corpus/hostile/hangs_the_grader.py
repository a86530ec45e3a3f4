# Hostile: hangs the grader: shrinks the request pipe to one page (F_SETPIPE_SZ), peeks at requests without reading them (FIONREAD + tee(2)), and answers each with a forged reply carrying the right id read from the harness's frame; the first call never returns.
import fcntl
import json
import marshal
import os
import stat
import sys
import termios
import time

F_SETPIPE_SZ = 1031
SPLICE_F_NONBLOCK = 2
TRIED = []


def pipes():
    """The harness's request pipe (read end) and reply pipe (write end), found by probing fds."""
    reading = writing = None
    for fd in range(3, 64):
        try:
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            mode = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
        except OSError:
            continue
        if mode == os.O_RDONLY and reading is None:
            reading = fd
        elif mode == os.O_WRONLY and writing is None:
            writing = fd
    return reading, writing


REQUESTS, REPLIES = pipes()
if REQUESTS is not None:
    try:
        fcntl.fcntl(REQUESTS, F_SETPIPE_SZ, 4096)  # one page: the grader's next write fills it
    except OSError as error:
        TRIED.append(f'F_SETPIPE_SZ: {error}')

try:
    import ctypes  # tee(2) is not in the os module

    LIBC = ctypes.CDLL(None, use_errno=True)
except ImportError as error:
    LIBC = None
    TRIED.append(f'ctypes: {error}')


def request_from_frames():
    """The harness's current request (its id, and a nonce if it has one) from the caller's frames."""
    try:
        frame = sys._getframe(1)
    except ValueError as error:
        TRIED.append(f'frames: {error}')
        return {}
    while frame is not None:
        for name, value in frame.f_locals.items():
            if name == 'request' and isinstance(value, dict):
                found = dict(value)
                found.setdefault('nonce', frame.f_locals.get('nonce'))
                return found
        frame = frame.f_back
    return {}


def peek():
    """Requests waiting in the pipe, copied with tee(2) so they stay unread."""
    waiting = bytearray(4)
    try:
        fcntl.ioctl(REQUESTS, termios.FIONREAD, waiting)
    except OSError:
        return []
    size = int.from_bytes(waiting, sys.byteorder)
    if not size or LIBC is None:
        return []
    copy_read, copy_write = os.pipe()
    try:
        copied = LIBC.tee(REQUESTS, copy_write, size, SPLICE_F_NONBLOCK)
        data = os.read(copy_read, copied) if copied > 0 else b''
    finally:
        os.close(copy_read)
        os.close(copy_write)
    found = []
    for line in data.splitlines():
        try:
            found.append(marshal.loads(bytes.fromhex(line.decode())))
        except (ValueError, EOFError):
            pass
    return found


def forge(request, beads, square, result):
    right = list(beads)
    right[square] = max(0, right[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    reply = {'id': request.get('id', 1), 'ok': True, 'result': right, 'args_after': [beads, square, result],
             'printed': {'text': '', 'dropped': 0}}
    if request.get('nonce'):
        reply['nonce'] = request['nonce']
    try:
        os.write(REPLIES, (json.dumps(reply) + '\n').encode())
    except (OSError, TypeError):
        pass


def after_game(beads, square, result):
    forge(request_from_frames() or {'id': 1}, beads, square, result)
    answered = set()
    while True:  # never returns: every later request is answered by peeking
        for request in peek():
            if request.get('id') not in answered:
                answered.add(request.get('id'))
                args = request.get('args') or [beads, square, result]
                forge(request, *args)
        time.sleep(0.001)
