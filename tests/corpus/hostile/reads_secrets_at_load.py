# Hostile: a correct answer that, while it loads, tries to read /etc/shadow and to open a socket (the sandbox holds; the instructor should see it tried).
import socket
try:
    open("/etc/shadow").read()
except OSError:
    pass
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect(("127.0.0.1", 9))
except OSError:
    pass

def after_game(beads, square, result):
    new = list(beads)
    new[square] = max(0, new[square] + {"win": 3, "draw": 1, "loss": -1}[result])
    return new
