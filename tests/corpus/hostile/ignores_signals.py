# Hostile: ignores every signal it can, then loops forever in every call.
import signal

for name in ('SIGTERM', 'SIGINT', 'SIGALRM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGXCPU'):
    try:
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    except (OSError, ValueError, AttributeError):
        pass


def after_game(beads, square, result):
    while True:
        pass
