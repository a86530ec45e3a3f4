# Hostile: tries the network (the grader's machine, then a public address) and reports what worked.
import socket

PORT = 47813  # the test rewrites this to a port it listens on


def attempt(host, port):
    try:
        with socket.create_connection((host, port), timeout=0.5) as conn:
            conn.sendall(b'menace-hostile-marker-network\n')
        return f'{host}:{port} connected'
    except OSError as error:
        return f'{host}:{port} {type(error).__name__}'


TRIED = [attempt('127.0.0.1', PORT)]


def after_game(beads, square, result):
    return TRIED + [attempt('1.1.1.1', 53), attempt('127.0.0.1', PORT)]
