# Hostile: holds memory that the address-space cap does not count, in 1 MB files in /dev/shm, /tmp and /var/tmp (and memfd), leaving them behind for later; it answers correctly only if it held more than 200 MB.
import os

KEPT = {}
for folder in ('/dev/shm', '/tmp', '/var/tmp'):
    KEPT[folder] = 0
    for i in range(200):
        try:
            with open(f'{folder}/menace-held-{os.getpid()}-{i}', 'wb') as file:
                file.write(b'x' * (1 << 20))
        except OSError:
            break
        KEPT[folder] += 1
FDS = []
for _ in range(100):
    try:
        fd = os.memfd_create('held')
        os.write(fd, b'x' * (1 << 20))
    except OSError:
        break
    FDS.append(fd)
KEPT['memfd'] = len(FDS)
print(KEPT)


def after_game(beads, square, result):
    if sum(KEPT.values()) <= 200:
        return None  # contained: nothing to boast about
    new = list(beads)
    new[square] = max(0, new[square] + {'win': 3, 'draw': 1, 'loss': -1}[result])
    return new
