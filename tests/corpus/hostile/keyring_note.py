# Hostile: passes a note to the next sandbox through the user keyring (add_key in one check, request_key + KEYCTL_READ in the next) and shows what an earlier one left.
KEY_SPEC_USER_KEYRING = -4
KEYCTL_READ = 11
NOTE = b'menace-keyring-note from an earlier submission'
FOUND = ''

try:
    import ctypes

    LIBC = ctypes.CDLL(None, use_errno=True)
    LIBC.syscall.restype = ctypes.c_long
    key = LIBC.syscall(249, b'user', b'menace-note', None, 0)  # request_key (x86-64)
    if key >= 0:
        buffer = ctypes.create_string_buffer(200)
        size = LIBC.syscall(250, KEYCTL_READ, key, buffer, 200)  # keyctl
        FOUND = buffer.raw[: max(size, 0)].decode(errors='replace')
    else:
        FOUND = f'no note (errno {ctypes.get_errno()})'
    added = LIBC.syscall(248, b'user', b'menace-note', NOTE, len(NOTE), KEY_SPEC_USER_KEYRING)  # add_key
    if added < 0:
        FOUND += f'; add_key: errno {ctypes.get_errno()}'
except ImportError as error:
    FOUND = f'ctypes: {error}'


def after_game(beads, square, result):
    return FOUND
