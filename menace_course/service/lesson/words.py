"""What the lesson page's widget says, in the student's language.

``frontend/src/lesson/words.js`` has these sentences in English as ``WORDS`` (its default,
which the unit tests use). The lesson page renders this table, in the page's language, into
``<script type="application/json" id="lesson-words">``, and the widget, the board under Step 3
and the programs' Run and Check take their sentences from it, as the challenge page's check
client takes its own (:mod:`menace_course.service.browser_words`). The keys and English
sentences here and in ``WORDS`` are the same (``tests/lesson_page/test_page_language.py``
compares them); values are filled in by name (``%(n)s``) on both sides. A sentence that
depends on a number has two keys, ``KEY_one`` (the number is 1) and ``KEY_other``: two
message ids, since the browser picks the form itself.
"""

from __future__ import annotations

from menace_course import language
from menace_course.wording import N_

#: The widget's sentences by key, as message ids of the gettext catalog.
WORDS: dict[str, str] = {
    "opponentPerfect": N_("Perfect"),
    "opponentRandom": N_("Random"),
    "opponentMenace": N_("the second MENACE"),
    "opponentYou": N_("you"),
    "chartPerfect": N_("Perfect"),
    "chartRandom": N_("Random"),
    "chartMenace": N_("MENACE"),
    "chartYou": N_("You"),
    "somethingWrong": N_("Something went wrong: %(message)s"),
    "serverAnswered": N_("the server answered %(status)s"),
    "freshMichie": N_(
        "A fresh MENACE (seed %(seed)s): every box is as Michie filled it. Press Play 1 game, 100 "
        "games or Play on."
    ),
    "freshMichieYou": N_(
        "A fresh MENACE (seed %(seed)s): every box is as Michie filled it. Press Play 1 game to "
        "play against it."
    ),
    "freshNumbers": N_(
        "A fresh MENACE (seed %(seed)s): with your numbers: %(settings)s. Press Play 1 game, 100 "
        "games or Play on."
    ),
    "freshNumbersYou": N_(
        "A fresh MENACE (seed %(seed)s): with your numbers: %(settings)s. Press Play 1 game to "
        "play against it."
    ),
    "playingMany": N_("Playing %(count)s games against %(opponent)s…"),
    "playedMany": N_("%(count)s more games against %(opponent)s played. The board shows the last of them."),
    "settingsOn": N_("rewards %(rewards)s, starting beads %(start)s, symmetry on"),
    "settingsOff": N_("rewards %(rewards)s, starting beads %(start)s, symmetry off"),
    "stopped": N_("Stopped."),
    "stoppedBecause": N_("Stopped: %(message)s"),
    "stoppedAfter": N_("Stopped after %(played)s games. The board shows the last of them."),
    "buttonStop": N_("Stop"),
    "buttonPlayOn": N_("Play on"),
    "playedMost": N_(
        "This MENACE has played %(n)s games, as many as one widget plays: press Start for a fresh one."
    ),
    "paceFastest": N_("as fast as it goes"),
    "pace_one": N_("%(n)s game a second"),
    "pace_other": N_("%(n)s games a second"),
    "playingOn": N_(
        "Playing on against %(opponent)s, %(pace)s: %(played)s games so far. Press Stop to stop."
    ),
    "oIsYou": N_("O is you now. Press Play 1 game: MENACE moves first, then click a square."),
    "oIsMenace": N_(
        "O is a second MENACE now, with boxes of its own: it learns from its games as MENACE does. "
        "The chart marks the change."
    ),
    "oIsOther": N_("O is %(opponent)s now. The chart will mark the change with a dashed line."),
    "yourMove": N_("MENACE played the %(square)s. Your move: choose an empty square."),
    "opensBox": N_("MENACE opens its box for this position: %(beads)s."),
    "resultWin": N_("MENACE won: each bead it drew goes back with 3 more of its color (+3)."),
    "resultDraw": N_("A draw: each bead it drew goes back with 1 more (+1)."),
    "resultResigned": N_(
        "MENACE resigned: its box for this position was empty. That counts as a loss, and the box "
        "gets its first beads back."
    ),
    "resultLoss": N_("MENACE lost: each bead it drew stays out of its box (−1)."),
    "gamesPlayed_one": N_("%(n)s game played"),
    "gamesPlayed_other": N_("%(n)s games played"),
    "tally": N_(": %(won)s won, %(drawn)s drawn, %(lost)s lost."),
    "boxesOpened": N_("Boxes opened: %(n)s."),
    "lastFifty": N_("The last 50 games: %(won)s won, %(drawn)s drawn, %(lost)s lost."),
    "firstBoxNow": N_("The first box now: "),
    "oBoxesOpened": N_("The second MENACE (O) has opened %(n)s boxes."),
    "seedNote": N_("Seed %(seed)s."),
    "seedSettingsNote": N_("Seed %(seed)s; %(settings)s."),
    "noCommand": N_("These games changed opponent, so no single terminal command plays them all."),
    "inATerminal": N_("The same games, move by move, in a terminal: "),
    "square0": N_("top left"),
    "square1": N_("top middle"),
    "square2": N_("top right"),
    "square3": N_("middle left"),
    "square4": N_("center"),
    "square5": N_("middle right"),
    "square6": N_("bottom left"),
    "square7": N_("bottom middle"),
    "square8": N_("bottom right"),
    "colour0": N_("red"),
    "colour1": N_("orange"),
    "colour2": N_("mustard"),
    "colour3": N_("green"),
    "colour4": N_("blue"),
    "colour5": N_("purple"),
    "colour6": N_("brown"),
    "colour7": N_("teal"),
    "colour8": N_("pink"),
    "nth1": N_("1st"),
    "nth2": N_("2nd"),
    "nth3": N_("3rd"),
    "nth4": N_("4th"),
    "nth5": N_("5th"),
    "nth6": N_("6th"),
    "nth7": N_("7th"),
    "nth8": N_("8th"),
    "beads_one": N_("%(square)s %(count)s %(colour)s bead"),
    "beads_other": N_("%(square)s %(count)s %(colour)s beads"),
    "listSeparator": N_(", "),
    "noBeads": N_("no beads at all"),
    "beadsDrew": N_("%(beads)s; drew %(square)s"),
    "beadTitle": N_("%(count)s %(colour)s"),
    "cardLabel": N_("Box %(box)s, before move %(move)s: %(beads)s"),
    "cardCaption": N_("Move %(move)s · MENACE's %(nth)s"),
    "cardChanged": N_("%(label)s. Change %(change)s"),
    "changeLabel_one": N_("%(change)s %(square)s bead"),
    "changeLabel_other": N_("%(change)s %(square)s beads"),
    "resignedLabel": N_("MENACE's box for this position is empty: it resigns"),
    "resignedCaption": N_("Empty box: MENACE resigns"),
    "squareLabel": N_("%(square)s, %(mark)s"),
    "squareEmpty": N_("%(square)s, empty"),
    "chartSummary_one": N_("Michie's chart after %(n)s game: the line is at %(last)s. %(segments)s."),
    "chartSummary_other": N_("Michie's chart after %(n)s games: the line is at %(last)s. %(segments)s."),
    "segmentFrom": N_("Against %(opponent)s from game %(from)s"),
    "segmentFromTo": N_("Against %(opponent)s from game %(from)s to %(to)s"),
    "segmentSeparator": N_("; "),
    "chartEmpty": N_("Michie's chart: no games yet."),
    "axisGames": N_("games played"),
    "axisScore": N_("wins ×3 + draws − losses"),
    "cueWin": N_("a win: green"),
    "cueDraw": N_("a draw: light gray"),
    "cueLoss": N_("a loss: firebrick, with a cross"),
    "boxLabel": N_("Box for the position %(position)s: %(beads)s"),
    "beadCount_one": N_("%(n)s bead"),
    "beadCount_other": N_("%(n)s beads"),
    "boxGroupMenace_one": N_("Before MENACE's move %(nth)s of the game: %(n)s box"),
    "boxGroupMenace_other": N_("Before MENACE's move %(nth)s of the game: %(n)s boxes"),
    "boxGroupO_one": N_("Before O's move %(nth)s of the game: %(n)s box"),
    "boxGroupO_other": N_("Before O's move %(nth)s of the game: %(n)s boxes"),
    "noBoxYet": N_("MENACE has not opened any box yet: play a game first."),
    "oBoxes": N_("The second MENACE's boxes (O): %(n)s"),
    "running": N_("Running in the sandbox…"),
    "notRun": N_("The program could not be run: %(message)s"),
    "stopEditing": N_("Stop editing"),
    "edit": N_("Edit"),
    "printed": N_("Printed"),
    "dropped": N_("(%(n)s more characters were printed and not kept)"),
    "frameLine": N_("line %(line)s: "),
    "frameLineIn": N_("line %(line)s, in %(function)s: "),
    "pictureLabel": N_(
        "The program's picture: one square for each game, green a win, gray a draw, firebrick with "
        "a cross a loss"
    ),
    "picture": N_("Picture"),
    "printedNothing": N_("The program ran and printed nothing."),
    "ranIn": N_("Ran in %(seconds)s s, in the sandbox."),
    "noSuchLine": N_("the lesson's program prints no such line"),
    "lessonsLine": N_("the lesson's line: %(line)s"),
    "sameLines": N_("Every line is the same as the lesson's."),
    "linesDiffer_one": N_("%(n)s line differs from the lesson's (marked)"),
    "linesDiffer_other": N_("%(n)s lines differ from the lesson's (marked)"),
    "linesMissing_one": N_("%(n)s of the lesson's line is missing"),
    "linesMissing_other": N_("%(n)s of the lesson's lines are missing"),
    "comparedOne": N_("%(part)s."),
    "comparedBoth": N_("%(differ)s; %(missing)s."),
    "signInFirst": N_(
        "Sign in first: checks are kept under your name. %(link)s with the token or the link your "
        "teacher gave you; you come back here with your program as you left it."
    ),
    "signInLink": N_("Sign in"),
    "notChecked": N_("Your program could not be checked: %(message)s"),
    "trainedWin": N_("MENACE won. Press New game to try again."),
    "trainedDraw": N_("A draw. Press New game to try again."),
    "trainedLoss": N_("You beat it! Press New game: does the same way work again?"),
    "trainedScore": N_("Against your MENACE: it won %(won)s, drew %(drew)s, lost %(lost)s."),
}


def lesson_words(tag: str) -> dict[str, str]:
    """The widget's sentences in ``tag``'s language (English where a sentence has no translation)."""
    return {key: language.gettext(message, tag) for key, message in WORDS.items()}
