# Hostile: imports the course's reference solution from where the course usually lives.
import sys

sys.path[:0] = ['/work/main/reference', '/work/main', '../reference', 'reference']
from after_game import after_game  # noqa: E402
