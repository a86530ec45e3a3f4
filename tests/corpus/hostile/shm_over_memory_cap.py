# Hostile: holds host memory past the memory cap with SysV shared memory (shmget, shmat, touch the pages, shmdt, repeat), then answers correctly and says how much it holds.
SEGMENT = 64 * 1024 * 1024
HELD = []
WHY = ''

try:
    import ctypes

    LIBC = ctypes.CDLL(None, use_errno=True)
    LIBC.shmat.restype = ctypes.c_void_p
    for _ in range(24):  # 1.5 GB, three times the 512 MB cap
        segment = LIBC.shmget(0, SEGMENT, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if segment < 0:
            WHY = f'shmget: errno {ctypes.get_errno()}'
            break
        address = LIBC.shmat(segment, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            WHY = f'shmat: errno {ctypes.get_errno()}'
            break
        ctypes.memset(address, 1, SEGMENT)  # touch every page
        LIBC.shmdt(ctypes.c_void_p(address))  # detached, but still allocated
        HELD.append(segment)
except ImportError as error:
    WHY = f'ctypes: {error}'


def after_game(beads, square, result):
    right = list(beads)
    right[square] = max(0, right[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    if HELD or WHY:
        print(f'held {len(HELD) * SEGMENT // 2**20} MB of shared memory ({WHY or "no error"})')
    return right
