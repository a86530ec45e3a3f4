# Everything play_game needs from the lesson: use it as it is.
# (From noughts.py and Steps 1 and 2; only the standard library is imported.)
import random

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(board):
    """The mark with a line of three, or None."""
    for a, b, c in LINES:
        if board[a] != " " and board[a] == board[b] == board[c]:
            return board[a]
    return None


TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]
WAYS = []
way = list(range(9))
for _ in range(4):
    WAYS.append(way)
    WAYS.append([way[i] for i in FLIP])
    way = [way[i] for i in TURN]


def name(board):
    """The smallest of the board's 8 versions, as a string, and the way that makes it."""
    best, best_way = None, None
    for way in WAYS:
        version = "".join(board[i] for i in way)
        if best is None or version < best:
            best, best_way = version, way
    return best, best_way


START = {9: 4, 7: 3, 5: 2, 3: 1}  # beads of each color, by empty squares
REWARD = {"win": 3, "draw": 1, "loss": -1}  # beads added to each one drawn


def new_box(position):
    """A new box for a named position: Michie's beads for each different move."""
    box = {}
    seen = []
    for s in range(9):
        if position[s] == " ":
            after = list(position)
            after[s] = "X"
            if name(after)[0] not in seen:
                seen.append(name(after)[0])
                box[s] = START[position.count(" ")]
    return box


def draw_bead(box):
    """A square from the box, at random: more beads, more likely."""
    squares = list(box)
    return random.choices(squares, weights=[box[s] for s in squares])[0]


def random_move(board):
    """The Random player: any empty square, each as likely."""
    return random.choice([i for i in range(9) if board[i] == " "])


_scores = {}  # board (a string) -> the score of each empty square for the player to move


def _move_scores(board):
    """Each empty square's score for the player to move: a quicker win scores more."""
    if board not in _scores:
        me = "X" if board.count(" ") % 2 == 1 else "O"
        scores = {}
        for i in range(9):
            if board[i] == " ":
                after = board[:i] + me + board[i + 1 :]
                if winner(after) == me:
                    scores[i] = after.count(" ") + 1
                elif " " not in after:
                    scores[i] = 0
                else:
                    scores[i] = -max(_move_scores(after).values())
        _scores[board] = scores
    return _scores[board]


def perfect_move(board):
    """The Perfect player: one of the best squares, at random."""
    scores = _move_scores("".join(board))
    top = max(scores.values())
    return random.choice([i for i in scores if scores[i] == top])


OPPONENTS = {"perfect": perfect_move, "random": random_move}


def play_game(boxes, opponent, seed):
    """MENACE (X) plays one game against opponent (O), then learns from it.

    Give back 'win', 'draw' or 'loss', for MENACE. Learn in boxes itself (name -> box).
    Each move: one square left, play it without a box; else name the board, make its box
    if new, resign on an empty box (a loss; fill it again), draw a bead and play it on
    way[bead]; then the opponent moves. After the game every bead drawn gets
    REWARD[result], never below 0. Draw at random only as the lesson does, in its order.

    The whole text: menace show play_game
    """
    random.seed(seed)                         # first: the seed decides the whole game
    board = [' '] * 9
    drawn = []                                # (position, bead) for each move
    # Play the game, move by move (see the challenge's steps), then deal with the
    # beads drawn: box[bead] = max(0, box[bead] + REWARD[result]).
    return 'loss'


print(play_game({}, 'perfect', 1))
